package strategytest

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

const (
	// lostWriteClaimTTL is the claim TTL of the lost-response-write case:
	// short, so that the case sees what happens once the claim expired.
	lostWriteClaimTTL = 500 * time.Millisecond
	// retryBudget is how long the case retries a key answered 409, well
	// past the claim TTL.
	retryBudget = 3 * time.Second
	retryPause  = 100 * time.Millisecond
)

// shortClaim is the lost-response-write case's tuning.
func shortClaim(d *strategy.Deps) { d.ClaimTTL = lostWriteClaimTTL }

// lostWriteCase (f): A's charge commits in Postgres, then A's request
// context ends (as when the client hangs up and net/http cancels it): every
// store write after the commit fails, so a Redis strategy loses its stored
// response. A retry of the key, answered 409 while a claim lives, must in
// the end replay A's answer and never charge again nor stay 409 forever.
//
// The fault is deterministic: the after-commit action cancels A's context,
// and go-redis checks the context before it sends a command, so the
// response write never reaches Redis.
func lostWriteCase(ctx context.Context, fx *fixture) violations {
	var v violations
	st := fx.replica()
	actx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var fired atomic.Int32
	fx.deps.Failpoints.Arm("end-after-commit", api.AfterCommit, failpoint.Attempt("A"),
		func(context.Context, failpoint.Hit) func() { fired.Add(1); cancel(); return nil })
	a := fx.send(actx, st, 0, "A", pay)
	if fired.Load() != 1 {
		fx.t.Fatalf("the after-commit fault fired %d times; want once", fired.Load())
	}
	v.executed("A", a)
	last, tries := retryWhileInFlight(ctx, fx, st)
	if last.Status == fx.deps.Profile.InFlight {
		v.add("the retry still got %s after %d tries over %s (claim TTL %s): the key is stuck",
			show(last), tries, retryBudget, lostWriteClaimTTL)
	} else {
		v.replayOf(fmt.Sprintf("the retry (try %d)", tries), a, last)
	}
	v.charged(fx.charges(ctx), 1)
	return v
}

// retryWhileInFlight retries the key while it is answered as in flight, for
// at most retryBudget; it returns the last answer and the number of tries.
func retryWhileInFlight(ctx context.Context, fx *fixture, st strategy.Strategy) (strategy.Response, int) {
	deadline := time.Now().Add(retryBudget)
	for try := 1; ; try++ {
		r := fx.send(ctx, st, 0, fmt.Sprintf("retry-%d", try), pay)
		if r.Status != fx.deps.Profile.InFlight || !time.Now().Before(deadline) {
			return r, try
		}
		select {
		case <-time.After(retryPause):
		case <-ctx.Done():
			return r, try
		}
	}
}
