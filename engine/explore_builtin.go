package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// exploreClaimTTL is the claim TTL of an explored built-in: longer than
// any execution, so what an order shows is the order, never a claim that
// lapsed while the scheduler held a request.
const exploreClaimTTL = 2 * time.Minute

// Explore explores strategy: one replica deployed on the Builtin's stores
// (its ledger emptied first), its every point held by the scheduler.
func (r *Builtin) Explore(ctx context.Context, strategy string, spec ExploreSpec) (explore.Result, error) {
	info, err := design.Lookup(strategy)
	if err != nil {
		return explore.Result{}, err
	}
	sl, err := r.ledgerOf(info.MySQL)
	if err != nil {
		return explore.Result{}, fmt.Errorf("%s: %w", strategy, err)
	}
	if _, err := sl.prepare(ctx, nil); err != nil {
		return explore.Result{}, err
	}
	r.cells++
	prefix := fmt.Sprintf("ic:%s:%d:", r.runID, r.cells)
	defer DropKeys(r.redis, prefix)
	t0 := time.Now()
	d, err := r.deploy(ctx, deploySpec{Strategy: strategy, Replicas: 1, Prefix: prefix, Profile: spec.Profile,
		ClaimTTL: exploreClaimTTL, Since: func() time.Duration { return time.Since(t0) }, InnoDB: info.MySQL})
	if err != nil {
		return explore.Result{}, err
	}
	defer d.close()
	return exploreOn(ctx, builtinExplore{r: r, d: d, sl: sl, info: info, prefix: prefix}, spec)
}

// builtinExplore is a deployed built-in strategy as an exploreTarget.
type builtinExplore struct {
	r      *Builtin
	d      *deployment
	sl     sqlLedger
	info   design.Info
	prefix string
}

func (b builtinExplore) name() string           { return b.info.Name }
func (b builtinExplore) points() *failpoint.Set { return b.d.failpoints }
func (b builtinExplore) twoStores() bool        { return scenarios.FactsOf(b.info).TwoStores }
func (b builtinExplore) route() string {
	u, _ := b.d.route(0, "")
	return u
}

func (b builtinExplore) open(ctx context.Context, accounts []workload.Account) error {
	return b.sl.open(ctx, accounts)
}

// truth reads the whole ledger (the Builtin's own: only the exploration's
// executions charged there) and the Redis records under its prefix.
func (b builtinExplore) truth(ctx context.Context, _ []string) (history.Ledger, error) {
	return groundTruth(ctx, b.sl.read, b.r.redis, b.info.Redis, b.prefix)
}
