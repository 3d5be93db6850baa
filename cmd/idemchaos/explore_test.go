package main

import (
	"strings"
	"testing"
)

// TestExploreCLI: explore proves pg-tx holds in every order of two
// duplicates (exit 0, the lattice drawn), finds redis-getset's race in an
// order the replay line runs again to the same double charge (exit 1),
// and refuses bad flags with exit 2.
func TestExploreCLI(t *testing.T) {
	o := cli(t, "explore", "--strategy", "pg-tx", "--quiet")
	if o.code != exitPass || !strings.Contains(o.stdout, "pg-tx, duplicate (2 requests, every order): ") ||
		!strings.Contains(o.stdout, "orders hold") || !strings.Contains(o.stdout, "A's steps: 1 send") {
		t.Fatalf("explore pg-tx: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = cli(t, "explore", "--strategy", "redis-getset", "--quiet", "--order", "AAAABABBBB")
	if o.code != exitViolated || !strings.Contains(o.stdout, "double_charge in 1 of 1 orders") ||
		!strings.Contains(o.stdout, "replay: idemchaos explore --strategy redis-getset --case duplicate --order AAAABABBBB") {
		t.Fatalf("explore redis-getset --order: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, bad := range [][]string{
		{"explore", "--strategy", "nope"},
		{"explore", "--strategy", "pg-tx", "--case", "nope"},
		{"explore", "--strategy", "pg-tx", "--order", "ABX"},
		{"explore", "--strategy", "pg-tx", "--requests", "4"},
		{"explore"},
	} {
		if o := cli(t, bad...); o.code != exitUsage || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("idemchaos %s: exit %d, want %d with one line\n%s", strings.Join(bad, " "), o.code, exitUsage, o.stderr)
		}
	}
}

// TestExplorePaymentd: explore against paymentd --failpoints, a process
// of its own speaking the failpoint protocol over HTTP: with redis-getset
// some order double-charges, printed with its replay line; with pg-tx
// every order holds.
func TestExplorePaymentd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		strategy string
		code     int
		says     string
	}{
		{"redis-getset", exitViolated, "double_charge in "},
		{"pg-tx", exitPass, "orders hold"},
	} {
		p := startPaymentd(t, c.strategy, "--failpoints")
		o := cli(t, "explore", "--quiet", "--target-url", p.url, "--ledger-url", p.ledgerURL, "--ledger-query", p.ledgerQuery,
			"--failpoints", "--case", "duplicate")
		if o.code != c.code || !strings.Contains(o.stdout, c.says) ||
			c.code == exitViolated && !strings.Contains(o.stdout, "replay: idemchaos explore --target-url") {
			t.Errorf("paymentd --strategy %s: exit %d, want %d saying %q\n%s\n%s", c.strategy, o.code, c.code, c.says, o.stdout, o.stderr)
		}
	}
}
