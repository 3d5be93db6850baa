package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// repoRoot is the repository, seen from this package.
const repoRoot = "../.."

// The image names the README, the Dockerfile's header, compose and the
// manifests use.
const (
	imageFull = "idemchaos/idemchaos:local"
	imageSlim = "idemchaos/idemchaos:slim"
)

// imageStages maps each image to the Dockerfile stage it is built from.
var imageStages = map[string]string{imageFull: "full", imageSlim: "slim"}

// readRepoFile reads a file of the repository.
func readRepoFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cliAccepts reports whether argv (argv[0] the idemchaos binary) is a
// command line the CLI accepts, asked of the real binary: the subcommand
// exists, every flag is one of its flags with a value of the flag's type,
// no stray argument (checked by the command's own flag set, with -h
// appended: parsing reads every flag before it, then stops at help); then,
// for the commands that run cells (run, matrix, soak), everything the
// command line names, checked by the CLI with --dry-run before any I/O:
// --shard, --scenarios, --strategies, --profile and, with --target-url,
// the whole description of the user's service. env holds the environment
// the command line runs with (IDEMCHAOS_LEDGER_URL).
func cliAccepts(argv []string, env map[string]string) error {
	if len(argv) < 2 || filepath.Base(argv[0]) != "idemchaos" {
		return fmt.Errorf("%q is not an idemchaos command line", argv)
	}
	checks := [][]string{withFlag(argv[1:], "-h")}
	if slices.Contains([]string{"run", "matrix", "soak", "client"}, argv[1]) {
		checks = append(checks, withFlag(argv[1:], "--dry-run"))
	}
	for _, args := range checks {
		cmd := exec.Command(binary, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Dir = repoRoot // files a command line names are the repository's
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return fmt.Errorf("idemchaos %s: exit %d: %s", strings.Join(args, " "), exit.ExitCode(), strings.TrimSpace(stderr.String()))
		case err != nil:
			return err
		}
	}
	return nil
}

// withFlag adds flag to args: last, or before a "--" that ends the flags
// (client: the client's own command line follows it).
func withFlag(args []string, flag string) []string {
	if i := slices.Index(args, "--"); i >= 0 {
		return slices.Concat(args[:i], []string{flag}, args[i:])
	}
	return append(slices.Clone(args), flag)
}

// flagValues reads --name value, --name=value and bare boolean flags from
// an accepted command line, and the positional arguments. A flag followed by
// another flag, or last, is a boolean set to true.
func flagValues(args []string) (map[string]string, []string) {
	flags := map[string]string{}
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		if n, v, ok := strings.Cut(name, "="); ok {
			flags[n] = v
			continue
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			flags[name] = args[i+1]
			i++
			continue
		}
		flags[name] = "true"
	}
	return flags, positional
}

// TestCLIAccepts: the check itself rejects what the CLI rejects, so the
// tests built on it can fail.
func TestCLIAccepts(t *testing.T) {
	ledger := map[string]string{scenarios.LedgerURLEnv: "postgres://u@ledger:5432/db"}
	good := [][]string{
		{"idemchaos", "matrix", "--seeds", "20", "--shard", "2/3", "--out", "shard-2", "--quiet"},
		{"idemchaos", "merge", "shard-1", "shard-2", "--out", "run"},
		{"/usr/local/bin/idemchaos", "report", "run", "--format", "html", "-o", "report.html"},
		{"idemchaos", "matrix", "--target-url", "http://payments:8080", "--allow-remote", "--ledger-query", "SELECT 1"},
	}
	for _, argv := range good {
		if err := cliAccepts(argv, ledger); err != nil {
			t.Errorf("%v: %v", argv, err)
		}
	}
	bad := [][]string{
		{"idemchaos", "matrx"},                                                                         // no such command
		{"idemchaos", "matrix", "--shards", "2/3"},                                                     // no such flag
		{"idemchaos", "matrix", "--seeds", "many"},                                                     // not an int
		{"idemchaos", "matrix", "stray"},                                                               // a stray argument
		{"idemchaos", "matrix", "--shard", "4/3"},                                                      // K beyond N
		{"idemchaos", "matrix", "--scenarios", "no-such"},                                              // unknown scenario
		{"idemchaos", "run", "--profile", "lenient"},                                                   // unknown profile
		{"idemchaos", "matrix", "--target-url", "http://payments:8080", "--ledger-query", "SELECT 1"},  // remote, not allowed
		{"idemchaos", "matrix", "--target-url", "http://127.0.0.1:8080", "--ledger-query", "SELECT 1"}, // no ledger URL
		{"paymentd", "--strategy", "pg-tx"},
	}
	for _, argv := range bad {
		env := ledger
		if slices.Contains(argv, "http://127.0.0.1:8080") {
			env = nil
		}
		if err := cliAccepts(argv, env); err == nil {
			t.Errorf("%v accepted", argv)
		}
	}
}

// toxiproxyConfig is a Toxiproxy config file: its proxies.
type toxiproxyConfig []struct {
	Name     string `json:"name"`
	Listen   string `json:"listen"`
	Upstream string `json:"upstream"`
	Enabled  bool   `json:"enabled"`
}

// port is the listen port of the named proxy, or "".
func (c toxiproxyConfig) port(name string) string {
	for _, p := range c {
		if p.Name == name {
			_, port, _ := net.SplitHostPort(p.Listen)
			return port
		}
	}
	return ""
}
