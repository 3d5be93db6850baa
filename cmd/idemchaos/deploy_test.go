package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// The deployment files (Dockerfile, deploy/, examples/github-actions/,
// action.yml) run on engines this machine does not have: no container
// engine, no cluster, no GitHub runner. Their tests parse them strictly and
// hand every idemchaos command line in them to the CLI's own flag sets.

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
// command line the CLI accepts: the subcommand exists, every flag is one of
// its flags with a value of the flag's type, no stray argument (all checked
// by the command's own flag set, with -h appended: parsing reads every flag
// before it, then stops at help); then the values the CLI checks before any
// I/O: --shard, --scenarios, --strategies, --profile and, with
// --target-url, the whole description of the user's service. env holds the
// environment the command line runs with (IDEMCHAOS_LEDGER_URL).
func cliAccepts(argv []string, env map[string]string) error {
	if len(argv) < 2 || filepath.Base(argv[0]) != "idemchaos" {
		return fmt.Errorf("%q is not an idemchaos command line", argv)
	}
	var stderr bytes.Buffer
	code := withoutStdout(func() int {
		return run(context.Background(), append(slices.Clone(argv[1:]), "-h"), io.Discard, &stderr)
	})
	if code != exitPass {
		return fmt.Errorf("idemchaos %s: exit %d: %s", strings.Join(argv[1:], " "), code, strings.TrimSpace(stderr.String()))
	}
	if err := cliValues(argv[1:], env); err != nil {
		return fmt.Errorf("idemchaos %s: %v", strings.Join(argv[1:], " "), err)
	}
	return nil
}

// withoutStdout runs f with os.Stdout on the null device: -h prints the
// command's flags there. The tests that call it are not parallel.
func withoutStdout(f func() int) int {
	null, err := os.Open(os.DevNull)
	if err != nil {
		panic(err)
	}
	defer null.Close()
	saved := os.Stdout
	os.Stdout = null
	defer func() { os.Stdout = saved }()
	return f()
}

// cliValues checks the values of a parsed command line with the CLI's own
// checks.
func cliValues(args []string, env map[string]string) error {
	flags, _ := flagValues(args[1:])
	if v, ok := flags["shard"]; ok {
		if _, err := scenarios.ParseShard(v); err != nil {
			return err
		}
	}
	if v, ok := flags["scenarios"]; ok {
		if _, err := matrixScenarios(v, ""); err != nil {
			return err
		}
	}
	if v, ok := flags["strategies"]; ok {
		if _, err := splitList("strategies", v, design.Names()); err != nil {
			return err
		}
	}
	if v, ok := flags["profile"]; ok {
		if _, err := profileFlag(v); err != nil {
			return err
		}
	}
	if _, ok := flags["target-url"]; ok {
		return targetAccepts(flags, env)
	}
	return nil
}

// targetAccepts builds the description of the user's service from the
// target flags, as run and matrix do, and checks it.
func targetAccepts(flags map[string]string, env map[string]string) error {
	fs := flag.NewFlagSet("target", flag.ContinueOnError)
	var t targetFlags
	t.register(fs)
	var args []string
	for name, v := range flags {
		if f := fs.Lookup(name); f != nil {
			args = append(args, "--"+name+"="+v)
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if t.ledgerURL == "" {
		t.ledgerURL = env[scenarios.LedgerURLEnv]
	}
	_, _, err := t.external()
	return err
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
