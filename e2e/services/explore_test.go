package services

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// explore runs idemchaos explore against s (which speaks the failpoint
// protocol) on the cases given, and returns its exit code and output.
func (s service) explore(t *testing.T, cases string, extra ...string) (int, string) {
	t.Helper()
	args := append([]string{"explore", "--quiet", "--target-url", s.url, "--ledger-url", s.ledgerURL, "--ledger-query", s.ledgerQuery,
		"--target-name", s.name, "--failpoints", "--case", cases}, extra...)
	cmd := exec.Command(filepath.Join(bin, "idemchaos"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	t.Logf("idemchaos %s: exit %d\n%s", strings.Join(args, " "), code, out.String())
	return code, out.String()
}

// TestExploreServices: explore runs through the CLI against services
// that speak the failpoint protocol, every order of two requests of a key
// each held at every point the service calls:
//   - mariadbinsertwait, whose duplicate waits on the first request's
//     uncommitted key row, holds a duplicate in some orders, printed with
//     the line that replays one;
//   - mariadbnowait passes every sampled scenario (TestMariaDBNowaitPasses),
//     yet in the orders where both requests read the key before either
//     inserts it, the second INSERT waits on the first's row: a held
//     duplicate no sampling showed;
//   - mariadbtx, whose INSERT claim never waits, holds in every order of
//     every case.
func TestExploreServices(t *testing.T) {
	t.Parallel()
	fast := []string{"--failpoints", "--provider", "20ms-40ms"}
	held := startMySQL(t, "mariadbinsertwait", fast...)
	code, out := held.explore(t, "duplicate")
	if code != exitViolated || !strings.Contains(out, "held_duplicate in ") || !strings.Contains(out, "replay: idemchaos explore --target-url") {
		t.Errorf("mariadbinsertwait: exit %d, want %d with held_duplicate and a replay line", code, exitViolated)
	}
	window := startMySQL(t, "mariadbnowait", fast...)
	code, out = window.explore(t, "duplicate")
	if code != exitViolated || !strings.Contains(out, "held_duplicate in ") || !strings.Contains(out, "after-check (waits)") {
		t.Errorf("mariadbnowait: exit %d, want %d with a duplicate waiting after its key check", code, exitViolated)
	}
	correct := startMySQL(t, "mariadbtx", fast...)
	code, out = correct.explore(t, "duplicate,mismatch,lost-reply")
	if code != exitPass || !strings.Contains(out, "mariadbtx: every one of ") {
		t.Errorf("mariadbtx: exit %d, want %d, every order holding", code, exitPass)
	}
}
