package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// exploreClaimTTL is the claim TTL of an explored built-in: longer than
// any execution, so what an order shows is the order, never a claim that
// lapsed while the scheduler held a request.
const exploreClaimTTL = 2 * time.Minute

// Explore explores strategy: one replica deployed on the Builtin's stores
// (its ledger emptied first), its every point held by the scheduler; a
// result per case.
func (r *Builtin) Explore(ctx context.Context, strategy string, spec ExploreSpec) ([]explore.Result, error) {
	info, err := design.Lookup(strategy)
	if err != nil {
		return nil, err
	}
	sl, err := r.ledgerOf(info.MySQL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strategy, err)
	}
	if _, err := sl.prepare(ctx, nil); err != nil {
		return nil, err
	}
	r.cells++
	prefix := fmt.Sprintf("ic:%s:%d:", r.runID, r.cells)
	defer DropKeys(r.redis, prefix)
	t0 := time.Now()
	d, err := r.deploy(ctx, deploySpec{Strategy: strategy, Replicas: 1, Prefix: prefix, Profile: spec.Profile,
		ClaimTTL: exploreClaimTTL, Since: func() time.Duration { return time.Since(t0) }, InnoDB: info.MySQL})
	if err != nil {
		return nil, err
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

func (b builtinExplore) client() client.Config { return client.Config{} }
func (b builtinExplore) workers() int          { return 0 }
func (b builtinExplore) currency() string      { return "EUR" }

// account opens a fresh account for execution n.
func (b builtinExplore) account(ctx context.Context, n int) (string, func(), error) {
	id := fmt.Sprintf("explore-%d", n)
	err := b.sl.open(ctx, []workload.Account{{ID: id, Currency: "EUR", Opening: exploreOpening}})
	return id, func() {}, err
}

// truth reads the whole ledger (the Builtin's own: only the exploration's
// executions charged there) and the Redis records under its prefix.
func (b builtinExplore) truth(ctx context.Context, _ []string) (history.Ledger, error) {
	return groundTruth(ctx, b.sl.read, b.r.redis, b.info.Redis, b.prefix)
}

// cut cuts the strategy's SQL or Redis link, as a plan's injection does;
// the heal also drops the SQL connections the cut broke, so the next
// execution starts afresh instead of meeting a dead one.
func (b builtinExplore) cut(a api.Action) (func(), error) {
	l := b.d.pgLink
	if a == api.RedisCut {
		l = b.d.redisLink
	}
	if err := l.Cut(); err != nil {
		return nil, err
	}
	return func() {
		_ = l.Heal()
		b.d.resetStores()
	}, nil
}

// cuts are the links the strategy uses: its SQL store's, and Redis's when
// it keeps records there.
func (b builtinExplore) cuts() []api.Action {
	if b.info.Redis {
		return []api.Action{api.PGCut, api.RedisCut}
	}
	return []api.Action{api.PGCut}
}
