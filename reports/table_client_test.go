package reports_test

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// TestClientTableLegendNamesTheClientAnomalies: a table of client mode
// runs says what a client's cell means and names the client checker's
// anomalies, not the server's.
func TestClientTableLegendNamesTheClientAnomalies(t *testing.T) {
	rs := []scenarios.Result{{Strategy: "charge.js", Scenario: scenarios.ClientScenario("json"), Seed: 1, Verdict: scenarios.Fail,
		Service: true, Anomalies: map[check.Anomaly]int{check.RetryNewKey: 1}}}
	var b strings.Builder
	if err := reports.WriteTable(&b, rs, reports.View{Width: 120}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"your client broke these rules", "nk retry_new_key", "tfc told_failed_charged"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "double_charge") || strings.Contains(out, "your service") {
		t.Errorf("a client table names the server's anomalies or a service:\n%s", out)
	}
}
