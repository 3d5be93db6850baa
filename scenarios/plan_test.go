package scenarios_test

import (
	"encoding/json"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// TestPlansAreSeeded: the same seed gives the same plan byte for byte, and
// another seed another plan.
func TestPlansAreSeeded(t *testing.T) {
	for _, sc := range scenarios.Catalog() {
		gen := func(seed uint64) string {
			p := sc.Plan(workload.Seeded(seed, "plan/"+sc.Name), scenarios.Params{Replicas: 2})
			if err := p.Validate(); err != nil {
				t.Fatalf("%s: %v", sc.Name, err)
			}
			b, _ := json.Marshal(p)
			return string(b)
		}
		if first, again := gen(5), gen(5); first != again {
			t.Errorf("%s: seed 5 gave two plans", sc.Name)
		}
		if gen(5) == gen(6) {
			t.Errorf("%s: seeds 5 and 6 gave the same plan", sc.Name)
		}
	}
}

func TestDroppedResponsePlacesFaults(t *testing.T) {
	sc, _ := scenarios.Lookup("dropped-response")
	for seed := uint64(1); seed <= 50; seed++ {
		p := sc.Plan(workload.Seeded(seed, "plan/"+sc.Name), scenarios.Params{Replicas: 1})
		faults := p.Faults()
		if len(faults) == 0 {
			t.Fatalf("seed %d: no fault placed", seed)
		}
		for _, f := range faults {
			if f.Try >= p.Ops[f.Op].MaxTries {
				t.Fatalf("seed %d: fault on the last try of op %d leaves no clean retry", seed, f.Op)
			}
		}
	}
}

func TestConcurrentDuplicatesShareKeyAndBody(t *testing.T) {
	sc, _ := scenarios.Lookup("concurrent-duplicates")
	p := sc.Plan(workload.Seeded(1, "plan/"+sc.Name), scenarios.Params{Replicas: 1})
	groups := map[int][]workload.Op{}
	for _, op := range p.Ops {
		groups[op.Group] = append(groups[op.Group], op)
	}
	for g, ops := range groups {
		if g < 0 || len(ops) < 2 {
			t.Fatalf("group %d has %d ops; want every op in a group of duplicates", g, len(ops))
		}
		for _, op := range ops[1:] {
			if op.Key != ops[0].Key || op.Amount != ops[0].Amount || op.Account != ops[0].Account {
				t.Fatalf("group %d: %+v differs from %+v", g, op, ops[0])
			}
		}
	}
}
