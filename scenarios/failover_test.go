package scenarios_test

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// TestFailoverPlanRetriesEveryKeyAfterTheKill: stage 0 keys, the cut,
// stage 1 keys, the kill, then every key again with its own body.
func TestFailoverPlanRetriesEveryKeyAfterTheKill(t *testing.T) {
	sc, _ := scenarios.Lookup("redis-failover")
	for seed := uint64(1); seed <= 20; seed++ {
		p := sc.Plan(workload.Seeded(seed, "plan/"+sc.Name), scenarios.Params{Replicas: 1})
		want := []workload.StoreEvent{{Stage: 1, Action: workload.ReplCut}, {Stage: 2, Action: workload.PrimaryKill}}
		if len(p.Events) != 2 || p.Events[0] != want[0] || p.Events[1] != want[1] {
			t.Fatalf("seed %d: events %+v; want %+v", seed, p.Events, want)
		}
		first := map[string]workload.Op{}
		perStage := map[int]int{}
		for _, op := range p.Ops {
			perStage[op.Stage]++
			if op.Stage < 2 {
				first[op.Key] = op
				continue
			}
			if f, ok := first[op.Key]; !ok || f.Amount != op.Amount || f.Account != op.Account {
				t.Fatalf("seed %d: retry %+v is not a first op's key and body", seed, op)
			}
		}
		if perStage[0] < 1 || perStage[1] < 2 || perStage[2] != perStage[0]+perStage[1] {
			t.Fatalf("seed %d: ops per stage %v", seed, perStage)
		}
	}
}

// TestFailoverAssumptions: a run is conclusive only when the failover
// happened and the write acknowledged after the cut was really lost.
func TestFailoverAssumptions(t *testing.T) {
	sc, _ := scenarios.Lookup("redis-failover")
	bit := scenarios.FailoverSeen{Replicated: 1, LinkDown: true, Promoted: true, CanaryLost: true,
		Held: []string{"idem:a", "idem:b"}, Lost: []string{"idem:b"}}
	if got := sc.Assume(scenarios.Observation{Failover: &bit}); len(got) != 0 {
		t.Fatalf("a failover that lost a record: %v; want no failed assumption", got)
	}
	pgOnly := bit
	pgOnly.Held, pgOnly.Lost = nil, nil // a strategy without Redis records: the canary proves it
	if got := sc.Assume(scenarios.Observation{Failover: &pgOnly}); len(got) != 0 {
		t.Fatalf("no records, canary lost: %v", got)
	}
	for why, mutate := range map[string]func(*scenarios.FailoverSeen){
		"did not complete":  func(f *scenarios.FailoverSeen) { f.Err = "no failover: not ready" },
		"before the cut":    func(f *scenarios.FailoverSeen) { f.Replicated = 0 },
		"link down":         func(f *scenarios.FailoverSeen) { f.LinkDown = false },
		"never promoted":    func(f *scenarios.FailoverSeen) { f.Promoted = false },
		"nothing was lost":  func(f *scenarios.FailoverSeen) { f.CanaryLost = false },
		"has all 2 records": func(f *scenarios.FailoverSeen) { f.Lost = nil },
	} {
		f := bit
		mutate(&f)
		got := strings.Join(sc.Assume(scenarios.Observation{Failover: &f}), " | ")
		if !strings.Contains(got, why) {
			t.Errorf("%s: assumptions %q", why, got)
		}
	}
	if got := sc.Assume(scenarios.Observation{}); len(got) != 1 {
		t.Errorf("no topology: %v", got)
	}
}
