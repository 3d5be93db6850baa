package reports_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
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

// TestDetailTellsAClientsFaultsPlannedAndMet: a client run's detail says
// how many faults its plan placed and how many a request met (a client
// that gave up met fewer), a built-in run's how many its plan placed.
func TestDetailTellsAClientsFaultsPlannedAndMet(t *testing.T) {
	plan := workload.ClientPlan{Seed: 1, Ops: []workload.ClientOp{
		{ID: "op-a", Account: "acct-a", Amount: 100, Currency: "usd", Faults: []workload.FrontFault{workload.DropAfterCommit, workload.ResetBeforeRead}},
		{ID: "op-b", Account: "acct-b", Amount: 100, Currency: "usd", Faults: []workload.FrontFault{workload.Unavailable}}}}
	rec := scenarios.ClientRecord{Name: "gives-up.mjs", Shape: "json", Profile: api.OptionalKey, Plan: plan}
	rec.Run.Ops = scenarios.Operations(plan)
	rec.Run.Received = []history.Received{
		{ID: "a1", Op: "op-a", Try: 1, Key: "ka", Fault: string(workload.DropAfterCommit), Charge: "ch-a"},
		{ID: "b1", Op: "op-b", Try: 1, Key: "kb", Fault: string(workload.Unavailable), Status: 503, RetryAfter: 1},
		{ID: "b2", Op: "op-b", Try: 2, Key: "kb", Arrived: 2 * time.Second, Status: 201, Charge: "ch-b"}}
	rec.Run.Told = []history.Told{{Op: "op-a", Outcome: history.Failed}, {Op: "op-b", Outcome: history.Succeeded}}
	rec.Run.Charges = []history.Charge{{ID: "ch-a", Account: "acct-a", Amount: 100}, {ID: "ch-b", Account: "acct-b", Amount: 100}}
	for _, c := range []struct {
		r    scenarios.Result
		want string
	}{
		{scenarios.JudgeClient(rec), "  3 requests, 2 of 3 planned faults met, "},
		{scenarios.Result{Strategy: "pg-tx", Scenario: "lost-response", Requests: 9, Faults: 3}, "  9 requests, 3 planned faults, "},
	} {
		var b strings.Builder
		if err := reports.WriteDetail(&b, c.r, reports.View{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "\n"+c.want) {
			t.Errorf("want %q in:\n%s", c.want, b.String())
		}
	}
}
