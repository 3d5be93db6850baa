package scenarios

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

func TestEveryPlannedInjectionParses(t *testing.T) {
	for _, sc := range Catalog() {
		for seed := uint64(1); seed <= 5; seed++ {
			p := sc.Plan(workload.Seeded(seed, "plan/"+sc.Name), Params{Replicas: max(sc.Target.Replicas, 1)})
			for _, f := range p.Faults() {
				if f.Inject.IsZero() {
					continue
				}
				if err := f.Inject.Validate(); err != nil {
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
	p := ProbePlan(plan, NextOp(plan))
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

// TestConfirmPlan: a key whose probe got the in-flight status or a 5xx
// that was not a replay gets one confirming probe, on its probe's replica,
// with the key's reference request; a key whose probe replayed, executed,
// was refused or got a replayed 5xx gets none.
func TestConfirmPlan(t *testing.T) {
	plan := workload.Plan{Ops: []workload.Op{
		{ID: 0, Key: "busy", Account: "acct-1", Amount: 700, MaxTries: 3, After: -1, Group: -1},
		{ID: 1, Key: "busy", Account: "acct-1", Amount: 900, MaxTries: 3, After: -1, Group: -1}, // not the reference
		{ID: 2, Key: "failed", Account: "acct-2", Amount: 300, MaxTries: 3, After: -1, Group: -1},
		{ID: 3, Key: "fine", MaxTries: 3, After: -1, Group: -1},
		{ID: 4, Key: "cached", MaxTries: 3, After: -1, Group: -1},
		{ID: 5, Key: "refused", MaxTries: 3, After: -1, Group: -1},
		{ID: 6, Key: "early", MaxTries: 3, After: -1, Group: -1},
	}}
	probes := []history.Attempt{
		{Op: 6, Key: "busy", Status: 409, Replica: 1},
		{Op: 7, Key: "failed", Status: 503, Replica: 0},
		{Op: 8, Key: "fine", Status: 201},
		{Op: 9, Key: "cached", Status: 503, Replayed: true},
		{Op: 10, Key: "refused", Status: 422},
		{Op: 11, Key: "early", Status: 425},
	}
	p := ConfirmPlan(plan, probes, api.IETF, 12)
	want := []workload.Op{
		{ID: 12, Key: "busy", Account: "acct-1", Amount: 700, Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: 1}}},
		{ID: 13, Key: "failed", Account: "acct-2", Amount: 300, Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: 0}}},
	}
	if fmt.Sprint(p.Ops) != fmt.Sprint(want) {
		t.Errorf("confirm plan\n%+v\nwant\n%+v", p.Ops, want)
	}
	// under a profile whose in-flight set has 425, the key answered 425 is confirmed too
	early := api.Profile{Name: "early", InFlight: 409, InFlightAlso: []int{425}, Mismatch: 422}
	p = ConfirmPlan(plan, probes, early, 12)
	want = append(want, workload.Op{ID: 14, Key: "early", Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: 0}}})
	if fmt.Sprint(p.Ops) != fmt.Sprint(want) {
		t.Errorf("confirm plan under %s\n%+v\nwant\n%+v", early.Name, p.Ops, want)
	}
	if got := ConfirmWait(250 * time.Millisecond); got != time.Second {
		t.Errorf("ConfirmWait(250ms) = %s, want at least a second", got)
	}
	if got := ConfirmWait(2 * time.Second); got != 2500*time.Millisecond {
		t.Errorf("ConfirmWait(2s) = %s, want 2.5s", got)
	}
}

func TestReplayPlanProbesCompletedKeys(t *testing.T) {
	plan := workload.Plan{Ops: []workload.Op{
		{ID: 0, Key: "a", Account: "acct-1", Amount: 100, Currency: "EUR", MaxTries: 3, After: -1, Group: -1},
		{ID: 1, Key: "a", Account: "acct-1", Amount: 900, Currency: "EUR", MaxTries: 3, After: 0, Group: -1},
		{ID: 2, Key: "", MaxTries: 1, After: -1, Group: -1},
		{ID: 3, Key: "b", Account: "acct-2", Amount: 200, MaxTries: 3, After: -1, Group: -1},
		{ID: 4, Key: "c", Account: "acct-3", Amount: 300, MaxTries: 3, After: -1, Group: -1},
		{ID: 5, Key: "d", Account: "acct-4", Amount: 400, MaxTries: 3, After: -1, Group: -1},
		{ID: 6, Key: "e", Account: "acct-1", Amount: 500, MaxTries: 3, After: -1, Group: -1},
		{ID: 7, Key: "f", Account: "acct-2", Amount: 600, MaxTries: 3, After: -1, Group: -1},
	}}
	attempts := []history.Attempt{
		// a: dropped, then a 2xx on another replica; then its mismatch refused
		{Op: 0, Try: 1, Key: "a", Replica: 1, Call: 1, Outcome: history.Indeterminate, Fault: workload.DropResponse, Err: "timeout"},
		{Op: 0, Try: 2, Key: "a", Replica: 2, Call: 2, Outcome: history.Acked, Status: 201},
		{Op: 1, Try: 1, Key: "a", Replica: 1, Call: 3, Outcome: history.Rejected, Status: 422},
		{Op: 2, Try: 1, Key: "", Outcome: history.Acked, Status: 201},
		// b: only a dropped answer, the server had answered
		{Op: 3, Try: 1, Key: "b", Replica: 0, Call: 4, Outcome: history.Indeterminate, Fault: workload.DropResponse, Err: "timeout"},
		// c: a 5xx and a plain timeout: never known to have completed
		{Op: 4, Try: 1, Key: "c", Call: 5, Outcome: history.Indeterminate, Status: 503},
		{Op: 4, Try: 2, Key: "c", Call: 6, Outcome: history.Indeterminate, Err: "timeout"},
		// d: a hidden re-send is not the client's view
		{Op: 5, Try: 1, Key: "d", Call: 7, Outcome: history.Acked, Status: 201, Hidden: true},
		// e: declined, a completed result too; f: only in flight (409), never completed
		{Op: 6, Try: 1, Key: "e", Call: 8, Outcome: history.Rejected, Status: 402},
		{Op: 7, Try: 1, Key: "f", Call: 9, Outcome: history.Rejected, Status: 409},
	}
	p := ReplayPlan(plan, attempts)
	type probe struct {
		id, after, replica int
		key, account       string
		amount             int64
	}
	var got []probe
	for _, op := range p.Ops {
		if op.MaxTries != 1 || len(op.Tries) != 1 || op.Group != -1 {
			t.Fatalf("probe op %+v", op)
		}
		got = append(got, probe{op.ID, op.After, op.Tries[0].Replica, op.Key, op.Account, op.Amount})
	}
	want := []probe{
		{8, -1, 1, "a", "acct-1", 100}, {9, 0, 2, "a", "acct-1", 100}, // the first op's payload, the replicas in order
		{10, -1, 0, "b", "acct-2", 200}, {11, 2, 0, "b", "acct-2", 200},
		{12, -1, 0, "e", "acct-1", 500}, {13, 4, 0, "e", "acct-1", 500},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("replay plan\n got %+v\nwant %+v", got, want)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if n := NextOp(plan, p); n != 14 {
		t.Fatalf("NextOp = %d", n)
	}
}

// TestReplayPlanLanes: keys are probed replayLanes at a time, each lane's
// probes one after another; a big plan gets more lanes, none longer than
// laneKeys keys.
func TestReplayPlanLanes(t *testing.T) {
	for _, c := range []struct{ keys, lanes int }{{3, 16}, {40, 16}, {128, 16}, {129, 17}, {5000, 625}} {
		var plan workload.Plan
		var attempts []history.Attempt
		for i := range c.keys {
			key := fmt.Sprintf("k%04d", i)
			plan.Ops = append(plan.Ops, workload.Op{ID: i, Key: key, MaxTries: 1, After: -1, Group: -1})
			attempts = append(attempts, history.Attempt{Op: i, Try: 1, Key: key, Outcome: history.Acked, Status: 201})
		}
		p := ReplayPlan(plan, attempts)
		if len(p.Ops) != c.keys*ReplayProbes {
			t.Fatalf("%d keys: %d probes", c.keys, len(p.Ops))
		}
		free, depth := 0, make([]int, len(p.Ops))
		for i, op := range p.Ops {
			switch {
			case op.After < 0:
				free++
				depth[i] = 1
			case op.After >= i:
				t.Fatalf("%d keys: probe %d waits for a later one", c.keys, i)
			default:
				depth[i] = depth[op.After] + 1
			}
			if depth[i] > laneKeys*ReplayProbes {
				t.Fatalf("%d keys: probe %d is %d deep in its lane", c.keys, i, depth[i])
			}
		}
		if free != min(c.lanes, c.keys) {
			t.Fatalf("%d keys: %d probes start at once; want %d", c.keys, free, min(c.lanes, c.keys))
		}
	}
}

// TestReplayPlanIgnoresWhoCameFirst: the probes depend on the plan and on
// which keys completed, not on the order the interleaving let requests in
// (a demo tells the same story every time).
func TestReplayPlanIgnoresWhoCameFirst(t *testing.T) {
	plan := workload.Plan{Ops: []workload.Op{
		{ID: 0, Key: "k", Account: "acct-1", Amount: 100, MaxTries: 1, After: -1, Group: -1},
		{ID: 1, Key: "k", Account: "acct-1", Amount: 100, MaxTries: 1, After: -1, Group: -1},
	}}
	run := func(first, second time.Duration) string {
		return fmt.Sprint(ReplayPlan(plan, []history.Attempt{
			{Op: 0, Try: 1, Key: "k", Replica: 0, Call: first, Outcome: history.Acked, Status: 201},
			{Op: 1, Try: 1, Key: "k", Replica: 1, Call: second, Outcome: history.Acked, Status: 201},
		}).Ops)
	}
	if a, b := run(1, 2), run(2, 1); a != b {
		t.Fatalf("probes depend on who came first:\n%s\n%s", a, b)
	}
}
