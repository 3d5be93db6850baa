package scenarios

import (
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestHarnessInput: the checker is told what the harness itself did to
// the requests: how long each was held at a point (a gate, a delay: from
// the trace), how long a slowed link slowed it (from its point to its
// answer), and when a store link was faulted (from the point, or from the
// send of a try faulted from outside, to the answer, plus a grace).
func TestHarnessInput(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	try := func(inject api.Injection) []workload.Try { return []workload.Try{{Inject: inject}} }
	plan := workload.Plan{Ops: []workload.Op{
		{ID: 0, Key: "k0", MaxTries: 1, Tries: try(api.Injection{})},
		{ID: 1, Key: "k1", MaxTries: 1, Tries: try(api.Injection{Action: api.PGCut, Point: api.BeforeCommit})},
		{ID: 2, Key: "k2", MaxTries: 1, Tries: try(api.Injection{Action: api.PGLatency, Arg: ms(400), Point: api.AfterClaim})},
		{ID: 3, Key: "k3", MaxTries: 1, Tries: try(api.Injection{Action: api.RedisCut, Point: api.AfterCommit})},
	}}
	obs := Observation{History: history.History{Attempts: []history.Attempt{
		{Op: 0, Try: 1, ID: "o0-t1", Call: ms(0), Return: ms(1300), Outcome: history.Acked},
		{Op: 1, Try: 1, ID: "o1-t1", Call: ms(100), Return: ms(200), Outcome: history.Indeterminate},
		{Op: 2, Try: 1, ID: "o2-t1", Call: ms(300), Return: ms(900), Outcome: history.Acked},
		{Op: 3, Try: 1, ID: "o3-t1", Call: ms(1000), Return: ms(1100), Outcome: history.Acked}, // faulted from outside: no point traced
	}}, Trace: []Event{
		{Point: "after-check", Attempt: "o0-t1", At: ms(10), Left: ms(1010)}, // the gate's second
		{Point: "before-commit", Attempt: "o0-t1", At: ms(1200), Left: ms(1200)},
		{Point: "before-commit", Attempt: "o1-t1", At: ms(150), Left: ms(150)},
		{Point: "after-claim", Attempt: "o2-t1", At: ms(320), Left: ms(320)},
	}}
	var in check.Input
	harnessInput(&in, plan, obs)
	wantHeld := map[string]time.Duration{"o0-t1": ms(1000), "o2-t1": ms(580)}
	if len(in.Held) != len(wantHeld) {
		t.Errorf("held %v, want %v", in.Held, wantHeld)
	}
	for id, d := range wantHeld {
		if in.Held[id] != d {
			t.Errorf("held %s %v, want %v", id, in.Held[id], d)
		}
	}
	wantFaulted := []check.Window{
		{From: ms(150), To: ms(200) + faultGrace},
		{From: ms(320), To: ms(900) + faultGrace},
		{From: ms(1000), To: ms(1100) + faultGrace},
	}
	if len(in.Faulted) != len(wantFaulted) {
		t.Fatalf("faulted %v, want %v", in.Faulted, wantFaulted)
	}
	for i, w := range wantFaulted {
		if in.Faulted[i] != w {
			t.Errorf("faulted[%d] %v, want %v", i, in.Faulted[i], w)
		}
	}
}
