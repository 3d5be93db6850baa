package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestCustomSpecFileRuns runs examples/retry-burst.yaml through a real
// runner: "none" double-charges, with a dropped response among the evidence;
// "pg-tx" passes. The saved cell, read back, judges the same without the file.
func TestCustomSpecFileRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real targets")
	}
	file, err := spec.Load("../examples/retry-burst.yaml", scenarios.Names())
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(t)
	run := func(strategy string) (scenarios.Result, scenarios.Record) {
		c := scenarios.Cell{Strategy: strategy, Scenario: file.Name, Seed: 1, Profile: api.IETF, Custom: &file}
		res, rec, err := engine.Run(context.Background(), r, c, "")
		if err != nil {
			t.Fatal(err)
		}
		return res, rec
	}
	res, rec := run("none")
	if res.Verdict != scenarios.Fail || res.Anomalies["double_charge"] == 0 || res.Scenario != "retry-burst" || res.Faults == 0 {
		t.Fatalf("none: verdict %s anomalies %v faults %d; want a double charge", res.Verdict, res.Anomalies, res.Faults)
	}
	if !droppedAmongEvidence(res) {
		t.Errorf("none: no timeline shows a dropped response: %+v", res.Timelines)
	}
	rejudged(t, rec, res)
	res, _ = run("pg-tx")
	if res.Verdict != scenarios.Pass {
		t.Fatalf("pg-tx: verdict %s anomalies %v assumptions %v", res.Verdict, res.Anomalies, res.Assumptions)
	}
}

func droppedAmongEvidence(res scenarios.Result) bool {
	for _, tl := range res.Timelines {
		for _, a := range tl.Attempts {
			if a.Fault == "drop-response" && len(tl.Charges) > 1 {
				return true
			}
		}
	}
	return false
}

// rejudged: the cell as saved in cell.json carries its spec, so judging it
// again gives the same verdict without the file.
func rejudged(t *testing.T, rec scenarios.Record, want scenarios.Result) {
	t.Helper()
	b, err := json.Marshal(rec.Cell)
	if err != nil {
		t.Fatal(err)
	}
	var c scenarios.Cell
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	rec.Cell = c
	got := scenarios.Judge(rec)
	if got.Verdict != want.Verdict || got.Anomalies["double_charge"] != want.Anomalies["double_charge"] {
		t.Fatalf("judged again: %s %v; first %s %v", got.Verdict, got.Anomalies, want.Verdict, want.Anomalies)
	}
}
