package strategy

import (
	"context"
	"time"
)

// Claimed is when a request's claim on its key ran: the round trip that
// took the key or found it taken (a Postgres lock or insert, a Redis SET
// NX). The server puts one in each request's context and logs it: a claim
// that waited on another request's open transaction shows as a round trip
// that began before that request finished and ended as it did, which the
// request's whole span (its parsing, its answer's write) blurs on a busy
// machine. Waits says the claim may wait on another request (an insert of
// a key an open transaction inserted); a try (a try-lock, SET NX) never
// does, so a request that waited did so elsewhere. Zero when the strategy
// marks none.
type Claimed struct {
	Start, End time.Time
	Waits      bool
}

type claimedKey struct{}

// WithClaimed returns ctx carrying c, which the request's first claim
// fills in.
func WithClaimed(ctx context.Context, c *Claimed) context.Context {
	return context.WithValue(ctx, claimedKey{}, c)
}

// claimed records a claim round trip that began at start and ended now,
// and whether it may wait, unless the request already recorded one (the
// first claim is the key's).
func claimed(ctx context.Context, start time.Time, waits bool) {
	c, _ := ctx.Value(claimedKey{}).(*Claimed)
	if c == nil || !c.Start.IsZero() {
		return
	}
	c.Start, c.End, c.Waits = start, time.Now(), waits
}

// MarkClaim records, for a strategy of another package, a claim round trip
// that began at start and ended now, and whether it may wait (claimed).
func MarkClaim(ctx context.Context, start time.Time, waits bool) { claimed(ctx, start, waits) }
