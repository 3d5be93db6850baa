package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// The claim TTLs of an explored built-in: longer than an execution of
// held requests usually takes, so what an order shows is the order, not a
// claim that lapsed while the scheduler held its request; short for the
// cases of a cut, whose requests follow one another, so that a claim a cut
// left behind is probed soon after it should have lapsed.
const (
	exploreClaimTTL = 10 * time.Second
	cutClaimTTL     = time.Second
)

// Explore explores strategy: one replica deployed on the Builtin's stores
// (its ledger emptied first), its every point held by the scheduler; a
// result per case, the cases of a cut on a deployment of their own.
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
	var out []explore.Result
	first := 0 // the rank of the group's first case, for the shard's share
	for _, group := range splitShared(spec.Cases) {
		ttl := exploreClaimTTL
		if group[0].Shares() {
			ttl = cutClaimTTL
		}
		part := spec
		part.Cases, part.first = group, first
		part.Planned = func(cases []explore.Case) {
			first += len(cases)
			if spec.Planned != nil {
				spec.Planned(cases)
			}
		}
		res, err := r.exploreDeployed(ctx, info, sl, part, ttl, group[0].Kill)
		out = append(out, res...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// splitShared splits cases into those that strike nothing shared, the
// cuts and the kills, each group in order, leaving out an empty one.
func splitShared(cases []explore.Case) [][]explore.Case {
	var plain, cuts, kills []explore.Case
	for _, c := range cases {
		switch {
		case c.Kill:
			kills = append(kills, c)
		case c.Cut != "":
			cuts = append(cuts, c)
		default:
			plain = append(plain, c)
		}
	}
	var out [][]explore.Case
	for _, g := range [][]explore.Case{plain, cuts, kills} {
		if len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// exploreDeployed deploys the strategy with claim TTL ttl and explores
// spec on it; for kills, twice on the same stores: the process killed,
// and the one that replaces it.
func (r *Builtin) exploreDeployed(ctx context.Context, info design.Info, sl sqlLedger, spec ExploreSpec, ttl time.Duration, kills bool) ([]explore.Result, error) {
	r.cells++
	prefix := fmt.Sprintf("ic:%s:%d:", r.runID, r.cells)
	defer DropKeys(r.redis, prefix)
	t0 := time.Now()
	ds := deploySpec{Strategy: info.Name, Replicas: 1, Prefix: prefix, Profile: spec.Profile,
		ClaimTTL: ttl, Since: func() time.Duration { return time.Since(t0) }, InnoDB: info.MySQL}
	d, err := r.deploy(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer d.close()
	t := builtinExplore{r: r, d: d, sl: sl, info: info, prefix: prefix, claimTTL: ttl, cell: r.cells}
	if kills {
		if t.next, err = r.deploy(ctx, ds); err != nil {
			return nil, err
		}
		defer t.next.close()
	}
	return exploreOn(ctx, t, spec)
}

// builtinExplore is a deployed built-in strategy as an exploreTarget.
type builtinExplore struct {
	r        *Builtin
	d        *deployment
	next     *deployment // for kills: the process that replaces d's
	sl       sqlLedger
	info     design.Info
	prefix   string
	claimTTL time.Duration
	cell     int // the deployment's number, in its accounts' names
}

func (b builtinExplore) name() string    { return b.info.Name }
func (b builtinExplore) twoStores() bool { return scenarios.FactsOf(b.info).TwoStores }

func (b builtinExplore) points() []*failpoint.Set {
	if b.next != nil {
		return []*failpoint.Set{b.d.failpoints, b.next.failpoints}
	}
	return []*failpoint.Set{b.d.failpoints}
}

// route is replica 0's deployment, or for replica 1 the one that replaces
// it when it is killed.
func (b builtinExplore) route(replica int) string {
	d := b.d
	if replica == 1 && b.next != nil {
		d = b.next
	}
	u, _ := d.route(0, "")
	return u
}

func (b builtinExplore) client() client.Config { return client.Config{} }
func (b builtinExplore) workers() int          { return 0 }
func (b builtinExplore) currency() string      { return "EUR" }

// claimTimeout is the claim TTL the strategy was deployed with.
func (b builtinExplore) claimTimeout() time.Duration { return b.claimTTL }

// account opens a fresh account for execution n.
func (b builtinExplore) account(ctx context.Context, n int) (string, func(), error) {
	id := fmt.Sprintf("explore-%d-%d", b.cell, n)
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
// execution starts afresh instead of meeting a dead one, and waits
// (bounded) until the SQL store has rolled back what the cut session had
// open: a loaded Postgres notices a closed connection late, and a request
// sent before it has met the cut request's claim still held, or not
// (pg-tx under pg-cut@before-commit: refused 409 in one run of an order,
// charged in another). What the harness cut is over before the next
// request goes.
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
		_ = b.sl.awaitNoTransaction(context.Background(), killWait) // past it, the order varies, and says so
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

func (b builtinExplore) kills() bool { return b.next != nil }

// kill kills the process of the first deployment: every store link of it
// is cut, so each connection it had dies (Postgres and InnoDB roll back
// what it had not committed; kill waits until they have) and it reaches
// no store again until revived. Its memory is left behind with it: the
// retries go to the next deployment.
func (b builtinExplore) kill(ctx context.Context) (func(), error) {
	links := []*fault.Link{b.d.pgLink}
	if b.info.Redis {
		links = append(links, b.d.redisLink)
	}
	for _, l := range links {
		if err := l.Cut(); err != nil {
			return nil, err
		}
	}
	revive := func() {
		for _, l := range links {
			_ = l.Heal()
		}
		b.d.resetStores()
	}
	if err := b.sl.awaitNoTransaction(ctx, killWait); err != nil {
		revive()
		return nil, err
	}
	return revive, nil
}

// killWait bounds how long a kill, or a cut's heal, waits for the SQL
// store to roll back the killed or cut session's transaction.
const killWait = 10 * time.Second
