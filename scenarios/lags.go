package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// Lags: a race window need not open as a request arrives. A look-up then
// a mark opens one in the first microseconds; a claim released before the
// response is stored opens one at the end of the charge. Duplicates all
// released together with their first request meet only the first kind.
// So against a service whose charge was measured, each duplicate of a
// race-hunting round is, at even odds, released with its first request
// at their barrier, or sent a lag after that release drawn log-uniformly
// between MinLag and the measured charge: as many duplicates land in each
// tenfold span of the first request's timeline (50 µs to 500 µs, 500 µs
// to 5 ms, ...), so a narrow window early in the charge is met as often
// as a wide one late in it.

// MinLag is the shortest lag a duplicate is given: about a Redis round
// trip on loopback, the width of the narrowest check-then-act window.
const MinLag = 50 * time.Microsecond

// lagWindow is the span of its first request's timeline a cell's
// duplicates are placed across: its service's measured charge; 0 (every
// duplicate released together) when it was not measured, or is too short
// to place anything in.
func lagWindow(c Cell) time.Duration {
	if c.Timing == nil || c.Timing.Charge <= MinLag {
		return 0
	}
	return c.Timing.Charge
}

// withLags gives each op of a barrier group but its first, at even odds
// drawn from rng, a lag between MinLag and window, log-uniform (rounded to
// the microsecond); the others keep none. A window of 0 changes nothing.
func withLags(plan workload.Plan, rng *rand.Rand, window time.Duration) workload.Plan {
	if window <= MinLag {
		return plan
	}
	span := math.Log(float64(window) / float64(MinLag))
	first := map[int]bool{}
	for i := range plan.Ops {
		op := &plan.Ops[i]
		if op.Group < 0 {
			continue
		}
		if !first[op.Group] {
			first[op.Group] = true
			continue
		}
		if rng.IntN(2) == 0 {
			continue
		}
		lag := time.Duration(float64(MinLag) * math.Exp(rng.Float64()*span))
		op.Lag = min(lag.Round(time.Microsecond), window)
	}
	return plan
}

// lagRand is the stream a cell's lags are drawn from.
func lagRand(c Cell, sc Scenario) *rand.Rand {
	return workload.Seeded(c.Seed, "plan/"+sc.Name+"/lags")
}

// lagNote says how a race-hunting cell's duplicates were placed ("": all
// released together with their first requests).
func lagNote(c Cell) string {
	w := lagWindow(c)
	if w == 0 {
		return ""
	}
	return fmt.Sprintf("duplicates placed across their first request's measured %s charge (median of %d): each, at even odds, released with it or sent %s to %s after it, log-uniform",
		ShortDuration(w), len(c.Timing.Samples), MinLag, ShortDuration(w))
}
