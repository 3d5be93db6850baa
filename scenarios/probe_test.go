package scenarios

import (
	"testing"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

func TestEveryPlannedInjectionParses(t *testing.T) {
	for _, sc := range Catalog() {
		for seed := uint64(1); seed <= 5; seed++ {
			p := sc.Plan(workload.Seeded(seed, "plan/"+sc.Name), Params{Replicas: max(sc.Target.Replicas, 1)})
			for _, f := range p.Faults() {
				if f.Inject == "" {
					continue
				}
				if _, err := api.ParseInjection(f.Inject); err != nil {
					t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
				}
			}
		}
	}
}

func TestProbePlanOneTryPerKey(t *testing.T) {
	plan := workload.Plan{Ops: []workload.Op{
		{ID: 0, Key: "a", MaxTries: 3, After: -1, Group: -1},
		{ID: 1, Key: "a", MaxTries: 3, After: -1, Group: -1},
		{ID: 2, Key: "", MaxTries: 1, After: -1, Group: -1},
		{ID: 3, Key: "b", MaxTries: 3, After: -1, Group: -1, Tries: []workload.Try{{Replica: 2}}},
	}}
	p := ProbePlan(plan)
	if len(p.Ops) != 2 || p.Ops[0].Key != "a" || p.Ops[1].Key != "b" || p.Ops[0].ID != 4 || p.Ops[1].ID != 5 {
		t.Fatalf("probe plan %+v", p.Ops)
	}
	if p.Ops[1].Tries[0].Replica != 2 || p.Ops[0].MaxTries != 1 {
		t.Fatalf("probe routes %+v", p.Ops)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}
