package shrink_test

import (
	"testing"

	"github.com/idemchaos/idemchaos/engine/shrink"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// TestStartReadsThePlan: retry-storm's plan read as a scenario file keeps
// its 40 keys, 6 tries, start window, retry policy and both faults of the
// first try, and the file's own plan places as many of each as the
// scenario's did.
func TestStartReadsThePlan(t *testing.T) {
	cell, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: "redis-getset", Scenario: "retry-storm", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := shrink.Start(cell, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(scenarios.Names()); err != nil {
		t.Fatal(err)
	}
	tr, r := s.Traffic, s.Retries
	if tr.Keys != 40 || tr.Duplicates != 0 || r.MaxTries != 6 || r.PerTryTimeout.D().Milliseconds() != 200 || tr.Spread == 0 ||
		len(s.Faults) != 2 || s.Faults[0].Kind != spec.KindDropResponse || s.Faults[1].Kind != spec.KindDelay ||
		s.Faults[1].At != "before-commit" || s.Faults[1].Duration.D().Milliseconds() != 300 {
		t.Fatalf("start: %+v", s)
	}
	mine := s.Plan(workload.Seeded(1, "plan/"+s.Name), 1)
	count := func(p workload.Plan) (drops, delays int) {
		for _, f := range p.Faults() {
			if f.Fault != "" {
				drops++
			}
			if !f.Inject.IsZero() {
				delays++
			}
		}
		return drops, delays
	}
	d0, l0 := count(plan)
	d1, l1 := count(mine)
	if d0 != d1 || l0 != l1 || len(mine.Ops) != len(plan.Ops) {
		t.Errorf("the file's plan: %d ops, %d drops, %d delays; the scenario's: %d, %d, %d", len(mine.Ops), d1, l1, len(plan.Ops), d0, l0)
	}
}
