package reports_test

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// TestDetailTellsDeclinedChargesAndDeviations: a run's detail sums the
// money charged for declined keys, and lists the deviations a profile
// documents apart from the findings, on a passing run too.
func TestDetailTellsDeclinedChargesAndDeviations(t *testing.T) {
	failed := scenarios.Result{Strategy: "pg-success-only", Scenario: "business-refusal", Verdict: scenarios.Fail,
		Anomalies: map[check.Anomaly]int{check.RefusalNotReplayed: 2},
		Findings: []check.Finding{{Anomaly: check.RefusalNotReplayed, Money: 1_001_700, Detail: "charged"},
			{Anomaly: check.RefusalNotReplayed, Detail: "replayed the charge"}}}
	var b strings.Builder
	if err := reports.WriteDetail(&b, failed, reports.View{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "declined, charged  10017.00\n") {
		t.Errorf("no money line:\n%s", b.String())
	}
	passed := scenarios.Result{Strategy: "target", Scenario: "business-refusal", Verdict: scenarios.Pass,
		Deviations: []check.Finding{{Anomaly: check.RefusalNotReplayed, Money: 500, Detail: "decided again, by design"}}}
	b.Reset()
	if err := reports.WriteDetail(&b, passed, reports.View{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "~ deviation the profile documents (refusal_not_replayed): decided again, by design\n") ||
		strings.Contains(b.String(), "declined, charged") {
		t.Errorf("deviation not told apart:\n%s", b.String())
	}
}
