package shrink

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// saveCell saves a judged dropped-response cell of none under root: a
// double charge with charges, a pass without.
func saveCell(t *testing.T, root string, seed uint64, charges int) scenarios.Result {
	t.Helper()
	c, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: "none", Scenario: "dropped-response", Seed: seed, Profile: api.IETF})
	if err != nil {
		t.Fatal(err)
	}
	op := plan.Ops[0]
	var l history.Ledger
	for i := range charges {
		l.Charges = append(l.Charges, history.Charge{ID: "ch_" + string(rune('1'+i)), Account: op.Account, Amount: op.Amount, Key: op.Key, Seq: int64(i + 1)})
	}
	l.Accounts = []history.Account{{ID: op.Account, Opening: 1000, Balance: 1000 - int64(charges)*op.Amount}}
	rec := scenarios.Record{Cell: c, Plan: plan, Obs: scenarios.Observation{Ledger: l, History: history.History{Seed: seed}}}
	res := scenarios.Judge(rec)
	dir := rundir.CellDir(root, c)
	if err := rundir.WritePlan(dir, c, plan); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteRecord(dir, rec, res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSaved: a run's first failing cell is found and read with the plan it
// ran and the anomaly to keep (double charge first); a cell directory is
// taken as it is; a run without a failing cell is refused in one line.
func TestSaved(t *testing.T) {
	root := t.TempDir()
	if err := rundir.Mark(root); err != nil {
		t.Fatal(err)
	}
	saveCell(t, root, 1, 1)
	if _, _, err := Saved(root); err == nil || !strings.Contains(err.Error(), "holds no failing cell") {
		t.Fatalf("a run that passed: %v", err)
	}
	failed := saveCell(t, root, 2, 2)
	if failed.Verdict != scenarios.Fail || failed.Anomalies[check.DoubleCharge] == 0 {
		t.Fatalf("the planted cell did not fail with a double charge: %+v", failed)
	}
	cfg, dir, err := Saved(root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cell.Seed != 2 || cfg.Plan == nil || len(cfg.Plan.Ops) == 0 || cfg.Anomaly != check.DoubleCharge || !strings.HasSuffix(dir, "seed-2") {
		t.Errorf("Saved = cell seed %d, plan %v, anomaly %q, dir %s", cfg.Cell.Seed, cfg.Plan != nil, cfg.Anomaly, dir)
	}
	if again, _, err := Saved(dir); err != nil || again.Cell.Seed != 2 {
		t.Errorf("the cell's own directory: seed %d, %v", again.Cell.Seed, err)
	}
}
