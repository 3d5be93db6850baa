package engine_test

import (
	"context"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// TestSplitDebitBreaksTheBalanceEverySeed, both directions: the cut before
// the commit leaves pg-split-debit's debit without its charge row on every
// seed (balance, never a double charge: the key held, the money did not),
// and pg-tx, debiting in the charge's transaction, keeps the balance under
// the same faults.
func TestSplitDebitBreaksTheBalanceEverySeed(t *testing.T) {
	cases := []struct {
		strategy string
		seeds    int
		verdict  scenarios.Verdict
	}{{"pg-split-debit", 20, scenarios.Fail}, {"pg-tx", 10, scenarios.Pass}}
	for _, c := range cases {
		t.Run(c.strategy, func(t *testing.T) {
			t.Parallel()
			r := newRunner(t)
			for seed := 1; seed <= c.seeds; seed++ {
				cell := scenarios.Cell{Strategy: c.strategy, Scenario: "db-fault-mid-request", Seed: uint64(seed)}
				res, _, err := engine.Run(context.Background(), r, cell, "")
				if err != nil {
					t.Fatal(err)
				}
				drift := res.Anomalies[check.Balance] > 0
				if res.Verdict != c.verdict || drift != (c.verdict == scenarios.Fail) || res.Anomalies[check.DoubleCharge] > 0 {
					t.Errorf("seed %d: %s %v %v; want %s", seed, res.Verdict, res.Anomalies, res.Assumptions, c.verdict)
				}
			}
		})
	}
}
