package workload_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/sim/workload"
)

func TestClientPlanMeetsEveryFaultAndRepeatsBySeed(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		for _, n := range []int{6, 14, 40} {
			p, err := workload.NewClientPlan(seed, workload.Seeded(seed, "client"), n)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := workload.NewClientPlan(seed, workload.Seeded(seed, "client"), n)
			if !reflect.DeepEqual(p, again) {
				t.Fatalf("seed %d: two plans differ", seed)
			}
			accounts := map[string]bool{}
			var first []workload.FrontFault
			for _, op := range p.Ops {
				accounts[op.Account] = true
				if p.OpOf(op.Account) != op.ID || len(op.Faults) > 2 {
					t.Fatalf("seed %d: %+v", seed, op)
				}
				if len(op.Faults) > 0 {
					first = append(first, p.FaultAt(op.ID, 1))
				}
				if p.FaultAt(op.ID, len(op.Faults)+1) != "" {
					t.Fatalf("seed %d: %s meets a fault past its planned ones", seed, op.ID)
				}
			}
			for _, f := range workload.FrontFaults {
				if !slices.Contains(first, f) {
					t.Errorf("seed %d, %d ops: no first try meets %s", seed, n, f)
				}
				if alone, then := dealt(p, f); alone == 0 || n >= 12 && then == 0 {
					t.Errorf("seed %d, %d ops: %s is dealt alone %d times, with a second fault %d times; want both from 12 ops on, alone always",
						seed, n, f, alone, then)
				}
			}
			if len(accounts) != n {
				t.Errorf("seed %d: %d accounts for %d operations: want one each", seed, len(accounts), n)
			}
		}
	}
	if _, err := workload.NewClientPlan(1, workload.Seeded(1, "client"), 5); err == nil {
		t.Error("a plan of 5 operations cannot meet the 6 faults; want an error")
	}
}

// dealt counts the operations whose first try meets f, alone and followed
// by a second fault.
func dealt(p workload.ClientPlan, f workload.FrontFault) (alone, then int) {
	for _, op := range p.Ops {
		switch {
		case len(op.Faults) == 1 && op.Faults[0] == f:
			alone++
		case len(op.Faults) == 2 && op.Faults[0] == f:
			then++
		}
	}
	return alone, then
}
