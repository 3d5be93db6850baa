package reports_test

import (
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// known are the anomalies of DESIGN.md section 4 (the held duplicate and
// the refusal not replayed among the profile's).
var known = []check.Anomaly{"double_charge", "lost_ack", "replay_mismatch", "mismatch_executed", "balance",
	"status_contract", "stuck_key", "store_desync", "cached_error", "held_duplicate", "refusal_not_replayed"}

func TestExplainEveryAnomaly(t *testing.T) {
	generic := reports.Explain("no_such_anomaly")
	titles := map[string]bool{}
	for _, name := range append(known, check.Anomalies()...) {
		e := reports.Explain(name)
		if e.Name != string(name) || e.Title == "" || e.What == "" || e.Why == "" || e.Avoid == "" || e.Cause == "" {
			t.Errorf("Explain(%q) has an empty field: %+v", name, e)
		}
		if e.What == generic.What {
			t.Errorf("Explain(%q) is the generic explanation", name)
		}
		titles[e.Title] = true
	}
	if len(titles) != len(known) {
		t.Errorf("%d distinct titles for %d anomalies (the checker knows %v)", len(titles), len(known), check.Names())
	}
}

func TestExplainUnknown(t *testing.T) {
	e := reports.Explain("no_such_anomaly")
	if e.Name != "no_such_anomaly" || e.Title == "" || e.What == "" || e.Why == "" || e.Avoid == "" {
		t.Errorf("generic explanation: %+v", e)
	}
}
