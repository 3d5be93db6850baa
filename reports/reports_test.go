package reports_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

func sampleResults() []scenarios.Result {
	return []scenarios.Result{
		{Strategy: "none", Scenario: "dropped-response", Seed: 1, Verdict: scenarios.Fail, AsExpected: true,
			Anomalies: map[check.Anomaly]int{"double_charge": 2, "lost_ack": 0}, Overcharged: 1250, Expected: []check.Anomaly{"double_charge"},
			Findings: []check.Finding{{Anomaly: "double_charge", Detail: "key abc…: 2 charges"}},
			Repro:    "idemchaos run --strategy none --scenario dropped-response --seed 1"},
		{Strategy: "none", Scenario: "dropped-response", Seed: 2, Verdict: scenarios.Pass, AsExpected: false,
			Anomalies: map[check.Anomaly]int{"double_charge": 0}, Expected: []check.Anomaly{"double_charge"},
			Repro: "idemchaos run --strategy none --scenario dropped-response --seed 2"},
		{Strategy: "pg-tx", Scenario: "dropped-response", Seed: 1, Verdict: scenarios.Pass, AsExpected: true},
		{Strategy: "pg-tx", Scenario: "dropped-response", Seed: 2, Verdict: scenarios.Inconclusive,
			Assumptions: []string{"the ledger held 3 charges before the run"}, Repro: "idemchaos run --strategy pg-tx --scenario dropped-response --seed 2"},
	}
}

func TestTableShowsVerdictsExpectationsAndEvidence(t *testing.T) {
	var b bytes.Buffer
	if err := reports.WriteTable(&b, sampleResults(), reports.View{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"none      !!MISSED 1/2 dc=2",
		"pg-tx     inconclusive 1/2",
		"4 runs: 2 pass, 1 fail, 1 inconclusive; 1 caught as declared, 1 NOT as declared; 12.50 overcharged in all",
		"none / dropped-response (seed 2): !! pass, NOT as declared: the declared double_charge was not caught",
		"repro: idemchaos run --strategy none --scenario dropped-response --seed 2",
		"assumption: the ledger held 3 charges before the run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := results.WriteJSON(&b, results.Document{Command: "matrix", Results: sampleResults()}); err != nil {
		t.Fatal(err)
	}
	doc, err := results.ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 4 || doc.Summary.Unexpected != 2 || doc.Summary.Overcharged != 1250 || doc.Tool != "idemchaos" {
		t.Fatalf("round trip: %+v", doc.Summary)
	}
	if _, err := results.ReadJSON(strings.NewReader(`{"schema_version": 99}`)); err == nil {
		t.Fatal("a future schema version was accepted")
	}
}

func TestMoney(t *testing.T) {
	for minor, want := range map[int64]string{0: "0.00", 5: "0.05", 1250: "12.50", -301: "-3.01"} {
		if got := reports.Money(minor); got != want {
			t.Errorf("Money(%d) = %q; want %q", minor, got, want)
		}
	}
}

// TestCoverageInEveryFormat: a cell's "exercised k/n" reaches the JSON
// document (per cell), the JUnit properties and the soak summary.
func TestCoverageInEveryFormat(t *testing.T) {
	doc := fixture()
	var js bytes.Buffer
	if err := results.WriteJSON(&js, doc); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.CellCoverage{
		{Strategy: "none", Scenario: "dropped-response", Exercise: "a retry after a charge that committed unheard", Exercised: 1, Seeds: 2},
		{Strategy: "redis-setnx", Scenario: "dropped-response", Exercise: "a retry after a charge that committed unheard", Exercised: 2, Seeds: 2},
		{Strategy: "pg-tx", Scenario: "dropped-response", Exercise: "a retry after a charge that committed unheard", Exercised: 1, Seeds: 2},
	}
	if !reflect.DeepEqual(back.Coverage, want) {
		t.Errorf("JSON coverage %+v", back.Coverage)
	}
	junit := string(render(t, reports.WriteJUnit, doc))
	if !strings.Contains(junit, `<property name="exercised" value="2/2">`) {
		t.Errorf("JUnit lacks the coverage:\n%s", junit)
	}
	tally := results.NewTally([]string{"none", "redis-setnx", "pg-tx"}, []string{"dropped-response"})
	for _, r := range doc.Results {
		tally.Add(r, int(r.Seed))
	}
	var soak bytes.Buffer
	if err := reports.WriteSoak(&soak, reports.Soak{Rounds: 2, Tally: tally}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(soak.String(), "dropped-response (a retry after a charge that committed unheard): none 1/2, redis-setnx 2/2, pg-tx 1/2") {
		t.Errorf("soak summary lacks the coverage:\n%s", soak.String())
	}
}
