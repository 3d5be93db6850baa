package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// assertFits fails for every line of out wider than width, but a repro
// line: a command is copied whole, never wrapped.
func assertFits(t *testing.T, what, out string, width int) {
	t.Helper()
	for line := range strings.SplitSeq(out, "\n") {
		if n := utf8.RuneCountInString(line); n > width && !strings.HasPrefix(line, "  repro: idemchaos ") {
			t.Errorf("%s: a line of %d columns at COLUMNS=%d: %s", what, n, width, line)
		}
	}
}

// TestMatrixFitsColumns runs the matrix of the strategies with the widest
// cells under every scenario with COLUMNS=120: no line of its output (the
// table, the evidence, stderr) is wider, built-in repro lines included; in
// full with --wide.
func TestMatrixFitsColumns(t *testing.T) {
	t.Parallel() // a session of its own on the shared stores; widths, not verdicts
	args := []string{"matrix", "--strategies", "none,redis-getset,redis-cache-errors,pg-blocking-claim,pg-tx"}
	o := cliEnv(t, append(storesEnv(), "COLUMNS=120"), args...)
	switch o.code { // the verdicts are not this test's business: a timing cell may miss on a loaded machine
	case exitPass:
	case exitViolated:
		for line := range strings.SplitSeq(o.stdout, "\n") {
			if strings.Contains(line, "NOT as declared") {
				t.Logf("not as declared (another test's business): %s", line)
			}
		}
	default:
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	assertFits(t, "matrix", o.stdout+o.stderr, 120)
	if strings.Count(o.stdout, "\n  repro: idemchaos run ") < 20 || !strings.Contains(o.stdout, "scenarios: 1 concurrent-duplicates") {
		t.Errorf("the matrix lacks its key or its evidence:\n%s", o.stdout)
	}
	for line := range strings.SplitSeq(o.stdout, "\n") {
		if strings.HasPrefix(line, "  repro: ") && utf8.RuneCountInString(line) > 120 {
			t.Errorf("a built-in repro line is wider than 120: %s", line)
		}
	}
	c := cliEnv(t, []string{"COLUMNS=120"}, "list")
	assertFits(t, "list", c.stdout, 120)
	narrow := cliEnv(t, []string{"COLUMNS=80"}, "list")
	assertFits(t, "list", narrow.stdout, 80)
	wide := cliEnv(t, []string{"COLUMNS=120"}, "list", "--wide")
	if c.code != exitPass || !strings.Contains(wide.stdout, "STRATEGIES  ") || len(wide.stdout) == len(c.stdout) {
		t.Errorf("list --wide is not the table:\n%s", wide.stdout)
	}
}

func TestColorFlag(t *testing.T) {
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		mode string
		tty  bool
		env  func(string) string
		want bool
	}{
		{"auto", true, env(), true},
		{"auto", false, env(), false},
		{"auto", true, env("NO_COLOR", "1"), false},
		{"auto", true, env("TERM", "dumb"), false},
		{"always", false, env("NO_COLOR", "1"), true},
		{"never", true, env(), false},
	} {
		if got, err := colorOn(c.mode, c.tty, c.env); err != nil || got != c.want {
			t.Errorf("--color %s, terminal %v: %v, %v; want %v", c.mode, c.tty, got, err, c.want)
		}
	}
	if o := cliEnv(t, nil, "check", "x", "--color", "sometimes"); o.code != exitUsage || !strings.Contains(o.stderr, "want auto, always or never") {
		t.Errorf("--color sometimes: exit %d %q", o.code, o.stderr)
	}
}
