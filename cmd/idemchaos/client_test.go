package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// exampleClient is the command line of the example fetch client.
func exampleClient(t *testing.T, args ...string) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the client command's tests need Node (apt-get install nodejs): %v", err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "clients", "fetch-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{node, script}, args...)
}

// TestClientCommand runs the two clients of the room's demo through the
// CLI: the one that keeps its key passes (exit 0), the one that makes a
// key per try fails (exit 1) with retry_new_key, and check re-judges its
// saved run offline to the same verdict.
func TestClientCommand(t *testing.T) {
	t.Parallel()
	good := cli(t, append([]string{"client", "--ops", "6", "--seed", "4", "--"}, exampleClient(t)...)...)
	if good.code != exitPass || !strings.Contains(good.stdout, "PASS") {
		t.Fatalf("a client that keeps its key: exit %d\n%s\n%s", good.code, good.stdout, good.stderr)
	}
	dir := filepath.Join(t.TempDir(), "run")
	bad := cli(t, append([]string{"client", "--ops", "6", "--seed", "4", "--out", dir, "--"},
		exampleClient(t, "--mistake", "new-key-per-try")...)...)
	if bad.code != exitViolated || !strings.Contains(bad.stdout, "retry_new_key") {
		t.Fatalf("a client that makes a key per try: exit %d\n%s\n%s", bad.code, bad.stdout, bad.stderr)
	}
	again := cli(t, "check", dir)
	if again.code != exitViolated || !strings.Contains(again.stderr, "0 differ") || !strings.Contains(again.stdout, "nk=") {
		t.Fatalf("check of the saved client run: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
}

func TestClientCommandRefusesBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"client"}, "the client's command is missing"},
		{[]string{"client", "--shape", "soap", "--", "true"}, `unknown API shape "soap"`},
		{[]string{"client", "--ops", "3", "--", "true"}, "--ops 3: want 6"},
	} {
		o := cli(t, c.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and one line with %q", c.args, o.code, o.stderr, c.want)
		}
	}
}

// TestClientThatSaysNothingIsInconclusive: a client that exits without a
// request or an outcome line proves nothing (exit 4), never a pass.
func TestClientThatSaysNothingIsInconclusive(t *testing.T) {
	t.Parallel()
	o := cli(t, "client", "--ops", "6", "--", "true")
	if o.code != exitInconclusive || !strings.Contains(o.stdout, "sent no request") {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestClientServedByHand is --serve as a person runs it: idemchaos serves
// the API and says what to give the client; the example client, started
// by hand with that environment, charges, and its outcome lines reach
// idemchaos on stdin (--stdin). The client keeps its key: exit 0.
func TestClientServedByHand(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "client", "--serve", "127.0.0.1:0", "--stdin", "--ops", "6", "--seed", "2", "--quiet")
	cmd.Env = append(os.Environ(), storesEnv()...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }() // a failed test leaves nothing running
	var env []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && env == nil {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "IDEMCHAOS_URL=") {
			env = strings.Fields(line)
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	if env == nil {
		t.Fatal("idemchaos client --serve never said what to give the client")
	}
	client := exec.Command(exampleClient(t)[0], exampleClient(t)[1:]...)
	client.Env, client.Stdout = append(os.Environ(), env...), stdin
	if err := client.Run(); err != nil {
		t.Fatalf("the client run by hand: %v", err)
	}
	stdin.Close()
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitPass || !strings.Contains(stdout.String(), "PASS") {
		t.Fatalf("exit %d (%v):\n%s", code, err, stdout.String())
	}
}

// TestClientServeBadInput: --serve with a command, off loopback or over
// seeds, and --stdin without it, are one line and exit 2.
func TestClientServeBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"client", "--serve", "127.0.0.1:0", "--", "node", "charge.js"}, "give it no command"},
		{[]string{"client", "--serve", "10.1.2.3:80"}, "loopback only"},
		{[]string{"client", "--serve", "127.0.0.1:0", "--seeds", "2"}, "one seed at a time"},
		{[]string{"client", "--stdin", "--", "node", "charge.js"}, "it needs --serve"},
		{[]string{"client", "--serve", "127.0.0.1:0", "--ops", "3"}, "--ops 3"},
	} {
		o := cli(t, tc.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want exit %d and %q", tc.args, o.code, o.stderr, exitUsage, tc.want)
		}
	}
}
