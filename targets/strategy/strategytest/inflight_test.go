package strategytest

import (
	"context"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

const (
	// inFlightBudget is how soon a duplicate of an in-flight request must
	// be answered: at once, never held until the first one ends.
	inFlightBudget = time.Second
	// holdMax bounds how long A is held; it is released well before, as
	// soon as B answered or inFlightBudget passed.
	holdMax = 5 * time.Second
)

// holdPoints are where A may be paused: the first of them it reaches,
// which is right after its claim (or its check, for a strategy that only
// checks) and, for a strategy with no key layer at all, before its commit.
var holdPoints = []api.Point{api.AfterCheck, api.AfterClaim, api.BeforeCommit}

// inFlightCase (c): while A holds the key, B with the same key and body
// gets the profile's in-flight status at once; A then completes, and the
// key is charged once.
func inFlightCase(ctx context.Context, fx *fixture) violations {
	var v violations
	st := fx.replica()
	h := newHold(holdMax)
	h.arm(fx.deps.Failpoints, "A", holdPoints...)
	defer h.free()
	aDone := goSend(ctx, fx, st, "A")
	select {
	case <-h.reached:
	case <-time.After(holdMax):
		fx.t.Fatalf("A never reached a hold point %v", holdPoints)
	}
	start := time.Now()
	bDone := goSend(ctx, fx, st, "B")
	b, answered := within(bDone, inFlightBudget)
	took := time.Since(start)
	if answered && len(aDone) > 0 {
		fx.t.Fatal("A was no longer held when B answered: the case proves nothing")
	}
	h.free()
	a := wait(fx, aDone, "A")
	if !answered {
		v.add("B was held: no answer within %s while A held the key", inFlightBudget)
		b = wait(fx, bDone, "B")
	}
	if want := fx.deps.Profile.InFlight; b.Status != want {
		v.add("B, sent while A was in flight, got %s after %s; want %d at once", show(b), took.Round(time.Millisecond), want)
	}
	v.executed("A", a)
	v.charged(fx.charges(ctx), 1)
	return v
}

// goSend runs one attempt of pay in its own goroutine.
func goSend(ctx context.Context, fx *fixture, st strategy.Strategy, attempt string) <-chan strategy.Response {
	done := make(chan strategy.Response, 1)
	go func() { done <- fx.send(ctx, st, 0, attempt, pay) }()
	return done
}

// within waits up to d for an answer.
func within(done <-chan strategy.Response, d time.Duration) (strategy.Response, bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case r := <-done:
		return r, true
	case <-timer.C:
		return strategy.Response{}, false
	}
}

// wait waits for an answer; every attempt is bounded by requestTimeout.
func wait(fx *fixture, done <-chan strategy.Response, who string) strategy.Response {
	fx.t.Helper()
	r, ok := within(done, requestTimeout+time.Second)
	if !ok {
		fx.t.Fatalf("%s never answered", who)
	}
	return r
}
