package reports_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

func verdict(t *testing.T, doc results.Document, notRun string) string {
	t.Helper()
	var b strings.Builder
	if err := reports.WriteVerdict(&b, doc, reports.View{Width: 120}, notRun); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestVerdictSaysWhatThePageSaysFirst: the text verdict is the HTML
// page's headline: the title, what it means and what to do first, the
// repro whole; a matrix as declared has nothing to do first.
func TestVerdictSaysWhatThePageSaysFirst(t *testing.T) {
	out := verdict(t, fixture(), "")
	for _, want := range []string{
		"2 cells not as declared. 1 broke, 1 missed; besides, 2 caught as declared, 1 passed, 1 inconclusive.\n",
		"What to do first: open pg-tx / redis-fault-after-commit: a concurrent duplicate got 500",
		"\n  Re-run it: idemchaos run --strategy pg-tx --scenario redis-fault-after-commit --seed 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lacks %q:\n%s", want, out)
		}
	}
	var declared []scenarios.Result
	for _, r := range fixture().Results {
		if !r.Class().NotAsDeclared() && r.Verdict != scenarios.Inconclusive {
			declared = append(declared, r)
		}
	}
	out = verdict(t, results.Document{Results: declared}, "")
	if !strings.HasPrefix(out, "Every cell as declared. The harness works: 2 flawed strategies caught in 2 cells") ||
		strings.Contains(out, "What to do first") {
		t.Errorf("a matrix as declared:\n%s", out)
	}
	doc := serviceDoc()
	out = verdict(t, doc, " (go test -v says why)")
	for _, want := range []string{
		"Your service broke in 1 of 3 scenarios. 1 scenario inconclusive besides.\n",
		"1 scenario could not run against it (go test -v says why).\n",
		"What to do first: fix double_charge in dropped-response: 2 charges for one key\n",
		"  How to avoid it: " + strings.Fields(reports.Explain(check.DoubleCharge).Avoid)[0],
	} {
		if !strings.Contains(out, want) {
			t.Errorf("service verdict lacks %q:\n%s", want, out)
		}
	}
}

// TestFindingsMoneyFirst: findings come anomaly by anomaly in the order
// of check.ByUrgency (money first), whatever the order of the results, at
// most so many each, the rest counted.
func TestFindingsMoneyFirst(t *testing.T) {
	contract := res("shop", "missing-key", 1, scenarios.Fail, false)
	for i := range 4 {
		contract.Findings = append(contract.Findings, check.Finding{Anomaly: check.StatusContract, Detail: fmt.Sprintf("got 201 without a key (%d)", i)})
	}
	money := res("shop", "concurrent-duplicates", 1, scenarios.Fail, false)
	for i := range 5 {
		money.Findings = append(money.Findings, check.Finding{Anomaly: check.DoubleCharge, Detail: fmt.Sprintf("key k%d: charged twice", i)})
	}
	money.Findings = append(money.Findings, check.Finding{Anomaly: check.ReplayMismatch, Detail: "key k0: two bodies"})
	payload := res("shop", "payload-mismatch", 1, scenarios.Fail, false)
	payload.Findings = []check.Finding{{Anomaly: check.MismatchExecuted, Detail: "key k9: another amount, charged"}}
	rs := []scenarios.Result{contract, money, payload}
	for i := range rs {
		rs[i].Service = true
	}
	var b strings.Builder
	left, err := reports.WriteFindings(&b, rs, reports.View{Width: 120}, 3)
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := `double_charge: 5 findings
  - concurrent-duplicates: key k0: charged twice
  - concurrent-duplicates: key k1: charged twice
  - concurrent-duplicates: key k2: charged twice
  and 2 more
mismatch_executed: 1 finding
  - payload-mismatch: key k9: another amount, charged
replay_mismatch: 1 finding
  - concurrent-duplicates: key k0: two bodies
status_contract: 4 findings
  - missing-key: got 201 without a key (0)
  - missing-key: got 201 without a key (1)
  - missing-key: got 201 without a key (2)
  and 1 more
`
	if out != want || left != 3 {
		t.Errorf("left %d (want 3), got:\n%s\nwant:\n%s", left, out, want)
	}
}

// TestTableLeavesCaughtEvidenceToTheReport: with an HTML report written,
// the table prints the evidence of the cells to look at only.
func TestTableLeavesCaughtEvidenceToTheReport(t *testing.T) {
	caught, broke := "none / dropped-response (seed 1)", "pg-tx / redis-fault-after-commit (seed 1)"
	all := table(t, fixture().Results, reports.View{Width: 120})
	if !strings.Contains(all, caught) || !strings.Contains(all, broke) {
		t.Fatalf("without a report the table lacks some evidence:\n%s", all)
	}
	some := table(t, fixture().Results, reports.View{Width: 120, Report: "runs/x/report.html"})
	if strings.Contains(some, caught) || !strings.Contains(some, broke) {
		t.Errorf("with a report, the evidence of a caught cell shows or that of a broken one does not:\n%s", some)
	}
}
