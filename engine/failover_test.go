package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
)

// TestFailoverLosesTheUnreplicatedClaims: on a real topology (the
// replication link a Toxiproxy link), redis-setnx's records of the keys
// charged after the cut are gone from the promoted replica, those charged
// before are there, and the retries charge the lost keys again; pg-tx and
// redis-pg-guard, Postgres being the truth, pass through the same
// failover.
func TestFailoverLosesTheUnreplicatedClaims(t *testing.T) {
	r := newRunner(t)
	res, rec, err := engine.Run(context.Background(), r, scenarios.Cell{Strategy: "redis-setnx", Scenario: "redis-failover", Seed: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	f := rec.Obs.Failover
	if f == nil || !f.Promoted || f.Err != "" || !f.CanaryLost || f.NewPrimary == f.OldPrimary {
		t.Fatalf("failover seen %+v", f)
	}
	for _, op := range rec.Plan.Ops {
		rkey := "idem:" + op.Key
		switch {
		case op.Stage == 0 && slices.Contains(f.Lost, rkey):
			t.Errorf("key %s, charged before the cut, lost", op.Key)
		case op.Stage == 1 && !slices.Contains(f.Lost, rkey):
			t.Errorf("key %s, charged after the cut, not lost (held %v, lost %v)", op.Key, f.Held, f.Lost)
		}
	}
	if res.Verdict != scenarios.Fail || res.Anomalies["double_charge"] == 0 || len(res.Assumptions) > 0 {
		t.Errorf("redis-setnx: %s %v %v; want a double charge", res.Verdict, res.Anomalies, res.Assumptions)
	}
	for _, st := range []string{"pg-tx", "redis-pg-guard"} {
		res, rec, err := engine.Run(context.Background(), r, scenarios.Cell{Strategy: st, Scenario: "redis-failover", Seed: 2}, "")
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != scenarios.Pass || !rec.Obs.Failover.Promoted {
			t.Errorf("%s: %s %v %v; want pass after a failover", st, res.Verdict, res.Anomalies, res.Assumptions)
		}
	}
}
