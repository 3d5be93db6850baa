package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
)

// TestUnexercisedCellInconclusive: slow-charge is about a retry crossing
// the claim TTL. With the claim kept 5s (far longer than the charge's
// latency) no retry can cross it: the seeds still pass on their own, but
// the cell exercised it on 0 of its seeds and Cover makes its passes
// inconclusive. With the scenario's own short claim the same seeds
// exercise it and the cell passes.
func TestUnexercisedCellInconclusive(t *testing.T) {
	r := newRunner(t)
	run := func(claim time.Duration) []scenarios.Result {
		var cells []scenarios.Cell
		for seed := uint64(1); seed <= 3; seed++ {
			cells = append(cells, scenarios.Cell{Strategy: "pg-tx", Scenario: "slow-charge", Seed: seed, ClaimTTL: claim})
		}
		rs, err := engine.RunAll(context.Background(), []engine.Executor{r}, cells, engine.Batch{})
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	long := run(5 * time.Second)
	passed := 0
	for _, res := range long {
		if res.Exercised || res.Exercise == "" {
			t.Fatalf("claim 5s, seed %d: exercised %v (%q); want a run that exercised nothing", res.Seed, res.Exercised, res.Exercise)
		}
		if res.Verdict == scenarios.Pass {
			passed++
		} else { // pg-tx passes slow-charge; a loaded machine can still time a run out
			t.Logf("claim 5s, seed %d: %s %v %v", res.Seed, res.Verdict, res.Anomalies, res.Assumptions)
		}
	}
	if passed == 0 {
		t.Fatal("claim 5s: no seed passed on its own, nothing for coverage to judge")
	}
	if cov := scenarios.CoverageOf(long); cov.String() != "exercised 0/3" {
		t.Errorf("claim 5s: %s", cov)
	}
	for i, res := range scenarios.Cover(long) {
		if long[i].Verdict == scenarios.Pass && (res.Verdict != scenarios.Inconclusive || !res.Unexercised || res.AsExpected ||
			!strings.Contains(strings.Join(res.Assumptions, "\n"), "exercised 0/3")) {
			t.Errorf("claim 5s, covered seed %d: %s %v; want inconclusive, exercised 0/3", res.Seed, res.Verdict, res.Assumptions)
		}
	}
	short := run(0) // the scenario's 250ms claim
	if cov := scenarios.CoverageOf(short); cov.Exercised == 0 {
		t.Fatalf("the scenario's own claim: %s", cov)
	}
	for i, res := range scenarios.Cover(short) {
		if short[i].Verdict == scenarios.Pass && res.Verdict != scenarios.Pass {
			t.Errorf("the scenario's own claim, seed %d: %s %v", res.Seed, res.Verdict, res.Assumptions)
		}
	}
}
