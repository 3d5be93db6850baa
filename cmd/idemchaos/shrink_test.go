package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/spec"
)

// shrunkFile reads a shrunk scenario file and checks it is minimal: at
// most 2 keys and a handful of attempts.
func shrunkFile(t *testing.T, file string) spec.Spec {
	t.Helper()
	s, err := spec.Load(file, scenarios.Names())
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Traffic.Keys * (1 + s.Traffic.Duplicates) * s.Retries.MaxTries; s.Traffic.Keys > 2 || n > 12 {
		t.Errorf("shrunk to %d keys, up to %d attempts: %+v", s.Traffic.Keys, n, s)
	}
	return s
}

// reproOf is the repro line shrink printed, as arguments.
func reproOf(t *testing.T, stdout string) []string {
	t.Helper()
	for line := range strings.SplitSeq(stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, "repro: idemchaos "); ok {
			return shellWords(rest)
		}
	}
	t.Fatalf("no repro line:\n%s", stdout)
	return nil
}

// shellWords splits a command line as a POSIX shell does words quoted
// the way repro lines quote them ('...', a quote inside as '\”).
func shellWords(line string) []string {
	var out []string
	var word strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == '\'':
			quoted, inWord = !quoted, true
		case ch == '\\' && !quoted && i+1 < len(line):
			i++
			word.WriteByte(line[i])
		case ch == ' ' && !quoted:
			if inWord {
				out, inWord = append(out, word.String()), false
				word.Reset()
			}
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		out = append(out, word.String())
	}
	return out
}

// assertShrunk checks what shrink printed: K, the cuts, the story.
func assertShrunk(t *testing.T, o outcome) {
	t.Helper()
	if o.code != exitPass {
		t.Fatalf("shrink: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{"fails with double_charge on 3 of 3 re-runs, K=3", "  cut: keys 40 -> ", "DOUBLE CHARGE", "sequenceDiagram"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("shrink's output lacks %q:\n%s", want, o.stdout)
		}
	}
}

// TestShrinkRetryStormRedisSetnxFromDir: redis-setnx passes retry-storm as
// declared (its claim outlives the held requests); with a claim TTL shorter
// than them it double-charges. Its saved run directory shrinks to a file
// of at most 2 keys whose repro line fails again.
func TestShrinkRetryStormRedisSetnxFromDir(t *testing.T) {
	t.Parallel() // mostly waiting on held requests and client timeouts
	dir := filepath.Join(t.TempDir(), "run")
	run := cli(t, "run", "--quiet", "--strategy", "redis-setnx", "--scenario-file", "testdata/retry-storm-short-claim.yaml", "--seed", "1", "--out", dir)
	if run.code != exitViolated || !strings.Contains(run.stdout, "double_charge") {
		t.Fatalf("the cell to shrink: exit %d\n%s\n%s", run.code, run.stdout, run.stderr)
	}
	file := filepath.Join(t.TempDir(), "min.yaml")
	o := cli(t, "shrink", dir, "--file", file, "--quiet")
	assertShrunk(t, o)
	s := shrunkFile(t, file)
	if s.Target.ClaimTTL.D().Milliseconds() != 100 {
		t.Errorf("the shrunk file lost the short claim: %s", s.Target.ClaimTTL)
	}
	again := cli(t, reproOf(t, o.stdout)...)
	if again.code != exitViolated || !strings.Contains(again.stdout, "double_charge") {
		t.Errorf("the repro line: exit %d\n%s", again.code, again.stdout)
	}
	if o := cli(t, "shrink", dir, "--file", file); o.code != exitUsage || !strings.Contains(o.stderr, "never overwrites") {
		t.Errorf("an existing --file: exit %d %q", o.code, o.stderr)
	}
}

// TestShrinkRetryStormPaymentd: the same for a user's service, paymentd
// --failpoints with redis-getset behind --target-url: the shrunk file
// fails K of K against it, and its repro line names the service. (A
// scenario file keeps keys for its key_ttl, 24h at most: the service's
// retention is declared with --key-ttl, as for any file.)
func TestShrinkRetryStormPaymentd(t *testing.T) {
	t.Parallel()
	// A shrink's runs charge the service's accounts again and again (more
	// of them on a loaded machine): the default balances ran out before
	// the repro line ran, and every charge of it was declined, 402.
	rich := "acct-1=10000000000,acct-2=10000000000,acct-3=10000000000,acct-4=10000000000"
	p := startPaymentd(t, "redis-getset", "--failpoints", "--accounts", rich)
	file := filepath.Join(t.TempDir(), "min.yaml")
	o := cliEnv(t, nil, "shrink", "--quiet", "--target-url", p.url, "--ledger-url", p.ledgerURL, "--ledger-query", p.ledgerQuery,
		"--failpoints", "--key-ttl", "24h", "--scenario", "retry-storm", "--seed", "1", "--file", file)
	assertShrunk(t, o)
	shrunkFile(t, file)
	args := reproOf(t, o.stdout)
	line := strings.Join(args, " ")
	if !strings.Contains(line, "--target-url "+p.url) || !strings.Contains(line, `--ledger-url "$IDEMCHAOS_LEDGER_URL"`) {
		t.Errorf("the repro line does not name the service, or not its ledger by the variable: %v", args)
	}
	for i, a := range args { // as the shell expands it
		if a == `"$IDEMCHAOS_LEDGER_URL"` {
			args[i] = p.ledgerURL
		}
	}
	again := cliEnv(t, nil, args...)
	if again.code != exitViolated || !strings.Contains(again.stdout, "double_charge") {
		t.Errorf("the repro line: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
}

// TestShrinkBadInput: bad flags are one line and exit 2; a cell that
// passes has nothing to shrink (exit 4).
func TestShrinkBadInput(t *testing.T) {
	exists := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(exists, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--strategy", "pg-tx", "--scenario", "retry-storm", "--k", "0"}, "--k 0: want 1 to 20"},
		{[]string{"--strategy", "pg-tx", "--scenario", "retry-storm", "--timeout", "2h"}, "--timeout 2h0m0s"},
		{[]string{"--strategy", "pg-tx", "--scenario", "retry-storm", "--file", exists}, "never overwrites"},
		{[]string{"--strategy", "pg-tx", "--scenario", "retry-storm", "--json", "-"}, "not --out or --json"},
		{[]string{t.TempDir(), "--strategy", "pg-tx"}, "DIR or --strategy/--scenario: give one"},
		{[]string{t.TempDir()}, "holds no failing cell: nothing to shrink"},
		{[]string{"--scenario", "retry-storm"}, "--strategy is required"},
	} {
		o := cliEnv(t, nil, append([]string{"shrink"}, c.args...)...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, o.code, o.stderr, c.want)
		}
	}
	o := cli(t, "shrink", "--quiet", "--strategy", "pg-tx", "--scenario", "missing-key", "--file", filepath.Join(t.TempDir(), "x.yaml"))
	if o.code != exitInconclusive || !strings.Contains(o.stderr, "did not fail: nothing to shrink") {
		t.Errorf("a passing cell: exit %d %q", o.code, o.stderr)
	}
}
