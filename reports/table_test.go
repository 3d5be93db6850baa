package reports_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// catalogResults is the whole default matrix on seeds 1..n, every cell as
// the catalog declares it, a double charge with its replay mismatch as a
// real run shows, and a finding far longer than a line.
func catalogResults(n int) []scenarios.Result {
	var rs []scenarios.Result
	long := "key 16cc3f75…: charged 8 times on account acct-3 (" + strings.Repeat("ch_4 by attempt o47-t1, ", 8) + "and 4 more); 126.00 EUR overcharged"
	for _, st := range design.Names() {
		for _, sc := range scenarios.BuiltinNames() {
			for seed := range n {
				r := scenarios.Result{Strategy: st, Scenario: sc, Seed: uint64(seed + 1), Verdict: scenarios.Pass, AsExpected: true,
					Expected: scenarios.Expected(st, sc, api.IETF), Currency: "EUR",
					Repro: scenarios.Repro(st, sc, uint64(seed+1), "ietf")}
				if len(r.Expected) > 0 {
					r.Verdict, r.Overcharged = scenarios.Fail, 1250
					r.Anomalies = map[check.Anomaly]int{}
					for _, a := range r.Expected {
						r.Anomalies[a] = 2
						if a == check.DoubleCharge {
							r.Anomalies[check.ReplayMismatch] = 3
						}
					}
					r.Findings = []check.Finding{{Anomaly: r.Expected[0], Detail: long}}
				}
				rs = append(rs, r)
			}
		}
	}
	return rs
}

func table(t *testing.T, rs []scenarios.Result, v reports.View) string {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteTable(&b, rs, v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// widest is the widest line of s, in runes, and that line.
func widest(s string) (int, string) {
	n, line := 0, ""
	for l := range strings.SplitSeq(s, "\n") {
		if w := utf8.RuneCountInString(l); w > n {
			n, line = w, l
		}
	}
	return n, line
}

// fullHeader starts the full layout: the strategy column, as wide as the
// longest name, then the scenarios by name.
var fullHeader = regexp.MustCompile(`^strategy +concurrent-duplicates  `)

// TestTableFitsTheWidth: the whole catalog's matrix, on one seed and on 20,
// fits 120 and 80 columns in the compact layout (numbered scenario columns
// under their key, in blocks when one does not fit), evidence wrapped, the
// repro lines whole; in full on request or when the width allows.
func TestTableFitsTheWidth(t *testing.T) {
	for _, seeds := range []int{1, 20} {
		rs := catalogResults(seeds)
		for _, w := range []int{120, 80} {
			out := table(t, rs, reports.View{Width: w})
			for line := range strings.SplitSeq(out, "\n") {
				repro, whole := strings.CutPrefix(line, "  repro: ")
				if n := utf8.RuneCountInString(line); n > w && !(whole && strings.HasPrefix(repro, "idemchaos run ")) {
					t.Errorf("%d seeds at %d columns: a line of %d:\n%s", seeds, w, n, line)
				}
			}
			for _, want := range []string{"scenarios: 1 concurrent-duplicates, 2 forced-race,", "caught as declared",
				"  repro: idemchaos run --strategy redis-cache-errors --scenario redis-fault-after-commit --seed 1\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("%d seeds at %d columns: no %q:\n%s", seeds, w, want, out)
				}
			}
			blocks := strings.Count(out, "\nstrategy ")
			// 15 scenarios and more no longer fit 120 columns in one block
			if seeds == 1 && w == 120 && blocks > 2 || seeds == 20 && blocks < 2 {
				t.Errorf("%d seeds at %d columns: %d blocks of columns:\n%s", seeds, w, blocks, out)
			}
		}
		full := table(t, rs, reports.View{Width: 120, Wide: true})
		if n, _ := widest(full); n <= 120 || !fullHeader.MatchString(full) {
			t.Errorf("--wide is %d columns, not the full layout:\n%s", n, full)
		}
		grid := func(s string) string { return s[:strings.Index(s, "\ncells:")] }
		if roomy := table(t, rs, reports.View{Width: 1000}); grid(roomy) != grid(full) {
			t.Errorf("a terminal wide enough does not get the full layout:\n%s", roomy)
		}
	}
}

// TestCompactCellsSayEverything: a compact cell still says pass, caught
// (which anomalies), not as declared (loud), missed, inconclusive and on
// how many seeds.
func TestCompactCellsSayEverything(t *testing.T) {
	r := func(st string, seed uint64, v scenarios.Verdict, asExpected bool, expected []check.Anomaly, anomalies ...check.Anomaly) scenarios.Result {
		res := scenarios.Result{Strategy: st, Scenario: "dropped-response", Seed: seed, Verdict: v, AsExpected: asExpected,
			Expected: expected, Anomalies: map[check.Anomaly]int{}}
		for _, a := range anomalies {
			res.Anomalies[a]++
		}
		return res
	}
	dc := []check.Anomaly{check.DoubleCharge}
	rs := []scenarios.Result{
		r("none", 1, scenarios.Fail, true, dc, check.DoubleCharge, check.ReplayMismatch),
		r("none", 2, scenarios.Fail, true, dc, check.DoubleCharge),
		r("memory", 1, scenarios.Fail, true, dc, check.DoubleCharge),
		r("memory", 2, scenarios.Pass, false, dc),
		r("pg-tx", 1, scenarios.Fail, false, nil, check.LostAck),
		r("pg-tx", 2, scenarios.Pass, true, nil),
		r("redis-pg-guard", 1, scenarios.Pass, true, nil),
		r("redis-pg-guard", 2, scenarios.Inconclusive, false, nil),
		r("redis-setnx", 1, scenarios.Pass, true, nil),
		r("redis-setnx", 2, scenarios.Pass, true, nil),
	}
	out := table(t, rs, reports.View{Width: 10})
	for _, want := range []string{"none            dc rm 2/2", "memory          !!MISSED 1/2", "pg-tx           !!LA 1/2",
		"redis-pg-guard  inconcl 1/2", "redis-setnx     pass\n", "1 dropped-response"} {
		if !strings.Contains(out, want) {
			t.Errorf("compact table lacks %q:\n%s", want, out)
		}
	}
}

var escape = regexp.MustCompile("\033\\[[0-9;]*m")

// TestColourIsEmphasisOnly: with colour the verdicts are painted (not as
// declared in bold red), and without the escapes the text is the plain one.
func TestColourIsEmphasisOnly(t *testing.T) {
	rs := catalogResults(1)
	rs[0].AsExpected = false // none / concurrent-duplicates: not as declared
	plain := table(t, rs, reports.View{Width: 120})
	colour := table(t, rs, reports.View{Width: 120, Color: true})
	if strings.Contains(plain, "\033[") {
		t.Errorf("a plain view has escapes:\n%q", plain)
	}
	for _, want := range []string{"\033[1;31m!!DC\033[0m", "\033[36mdc\033[0m", "\033[32mpass\033[0m", "\033[1;31mNOT\033[0m"} {
		if !strings.Contains(colour, want) {
			t.Errorf("the coloured view lacks %q", want)
		}
	}
	if got := escape.ReplaceAllString(colour, ""); got != plain {
		t.Errorf("colour changed the text:\n%s\n--- plain\n%s", got, plain)
	}
}

// TestDetailSaysWhereTheRestIs: a run's detail shows ten findings and says
// where the others are: the run directory or JSON file when one was
// written, else how to keep them.
func TestDetailSaysWhereTheRestIs(t *testing.T) {
	r := scenarios.Result{Strategy: "none", Scenario: "retry-storm", Seed: 1, Verdict: scenarios.Fail, Currency: "EUR", Overcharged: 1250}
	for range 12 {
		r.Findings = append(r.Findings, check.Finding{Anomaly: check.DoubleCharge, Detail: "key k: charged twice " + strings.Repeat("and more ", 20)})
	}
	for kept, want := range map[string]string{
		"":                            "  ... 2 more findings not shown (--out DIR or --json FILE keeps them all)\n",
		"in the run directory runs/x": "  ... 2 more findings in the run directory runs/x\n",
	} {
		var b bytes.Buffer
		if err := reports.WriteDetail(&b, r, reports.View{Width: 80, Kept: kept}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "JSON output") || !strings.Contains(b.String(), "12.50 EUR") {
			t.Errorf("detail kept %q lacks %q:\n%s", kept, want, b.String())
		}
		if n, line := widest(b.String()); n > 80 {
			t.Errorf("a line of %d at 80 columns: %s", n, line)
		}
	}
}
