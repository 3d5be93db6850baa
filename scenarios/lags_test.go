package scenarios

import (
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// TestLagsAcrossTheCharge: against a service whose charge was measured,
// about half the duplicates of a race-hunting plan wait a lag after their
// barrier, drawn from the seed between MinLag and the charge and spread
// over its decades; a group's first request never waits. Without a
// measured charge, and for a built-in strategy, every duplicate goes with
// its first request.
func TestLagsAcrossTheCharge(t *testing.T) {
	const charge = 5 * time.Millisecond
	c := serviceCell("concurrent-duplicates")
	c.Timing = &Timing{Charge: charge, Samples: []time.Duration{charge, charge, charge}}
	_, plan, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	firsts := map[int]bool{}
	var dups, lagged, early, late int
	for _, op := range plan.Ops {
		if !firsts[op.Group] {
			firsts[op.Group] = true
			if op.Lag != 0 {
				t.Fatalf("op %d, its group's first, lags %s", op.ID, op.Lag)
			}
			continue
		}
		dups++
		switch {
		case op.Lag == 0:
			continue
		case op.Lag < MinLag || op.Lag > charge:
			t.Fatalf("op %d lags %s; want %s to %s", op.ID, op.Lag, MinLag, charge)
		case op.Lag < 500*time.Microsecond:
			early++
		case op.Lag >= 500*time.Microsecond:
			late++
		}
		lagged++
	}
	if lagged < dups*2/5 || lagged > dups*3/5 {
		t.Errorf("%d of %d duplicates lagged; want about half", lagged, dups)
	}
	// log-uniform from 50µs to 5ms: half below 500µs, half above
	if early < lagged/3 || late < lagged/3 {
		t.Errorf("lags: %d under 500µs, %d over; want both about half of %d", early, late, lagged)
	}
	if _, again, _ := Prepare(c); !sameLags(plan, again) {
		t.Error("the lags are not drawn from the seed")
	}
	if n := lagNote(c); n == "" {
		t.Error("no note says how the duplicates were placed")
	}
	c.Timing = nil
	unmeasured := mustPrepare(t, c)
	builtin := mustPrepare(t, Cell{Strategy: "pg-tx", Scenario: "concurrent-duplicates", Seed: 3})
	for _, p := range []workload.Plan{unmeasured, builtin} {
		for _, op := range p.Ops {
			if op.Lag != 0 {
				t.Fatalf("op %d lags %s without a measured service charge", op.ID, op.Lag)
			}
		}
	}
}

func sameLags(a, b workload.Plan) bool {
	if len(a.Ops) != len(b.Ops) {
		return false
	}
	for i := range a.Ops {
		if a.Ops[i].Lag != b.Ops[i].Lag {
			return false
		}
	}
	return true
}

func mustPrepare(t *testing.T, c Cell) workload.Plan {
	t.Helper()
	_, plan, err := Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
