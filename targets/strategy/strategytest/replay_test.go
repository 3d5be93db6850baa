package strategytest

import (
	"context"
)

// replayCase (a): the same key twice with the same body charges once, and
// the second answer is the first one replayed.
func replayCase(ctx context.Context, fx *fixture) violations {
	var v violations
	st := fx.replica()
	first := fx.send(ctx, st, 0, "A", pay)
	again := fx.send(ctx, st, 0, "B", pay)
	v.executed("the first attempt", first)
	v.replayOf("the retry", first, again)
	v.charged(fx.charges(ctx), 1)
	return v
}

// mismatchCase (b): the same key with another amount gets the profile's
// mismatch status and charges nothing more.
func mismatchCase(ctx context.Context, fx *fixture) violations {
	var v violations
	st := fx.replica()
	first := fx.send(ctx, st, 0, "A", pay)
	other := pay
	other.Amount++
	b := fx.send(ctx, st, 0, "B", other)
	v.executed("the first attempt", first)
	if want := fx.deps.Profile.Mismatch; b.Status != want {
		v.add("the other payload got %s; want %d (mismatch)", show(b), want)
	}
	v.charged(fx.charges(ctx), 1)
	return v
}

// otherReplicaCase (e): the retry lands on a second instance of the
// strategy sharing the same stores, as behind a load balancer. A single
// instance cannot show per-process state; two can.
func otherReplicaCase(ctx context.Context, fx *fixture) violations {
	var v violations
	first := fx.send(ctx, fx.replica(), 0, "A", pay)
	again := fx.send(ctx, fx.replica(), 1, "B", pay)
	v.executed("the first attempt (replica 0)", first)
	v.replayOf("the retry on replica 1", first, again)
	v.charged(fx.charges(ctx), 1)
	return v
}
