package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// warm opens n of the pool's connections at once (at most its size), then
// checks that Redis answers. A connection opened cold under a request
// costs a backend fork, which Postgres's postmaster does one at a time: on
// 2 busy cores, the opening burst of 8 cells at once waited about 2s for
// them, longer than a client's timeout, and a dropped response's retry
// then raced the try it retried.
func warm(ctx context.Context, pool *pgxpool.Pool, rdb *redis.Client, n int) error {
	n = min(n, int(pool.Config().MaxConns))
	conns := make([]*pgxpool.Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { conns[i], errs[i] = pool.Acquire(ctx) })
	}
	wg.Wait()
	reopen(ctx, pool, conns, errs)
	for _, c := range conns {
		if c != nil {
			c.Release()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return rdb.Ping(ctx).Err()
}

// reopen opens again, one at a time, the connections of a burst that
// timed out: beside other runs' bursts on the same server (the shards of
// a matrix, on 2 cores) the postmaster's queue of forks outwaits the
// connect timeout, which stays short for the requests (a cut link must
// fail them fast). It retries for at most warmPatience connect timeouts,
// and only timeouts: a refused or failing server fails at once.
func reopen(ctx context.Context, pool *pgxpool.Pool, conns []*pgxpool.Conn, errs []error) {
	deadline := time.Now().Add(warmPatience * pool.Config().ConnConfig.ConnectTimeout)
	for i := range errs {
		for pgconn.Timeout(errs[i]) && ctx.Err() == nil && time.Now().Before(deadline) {
			conns[i], errs[i] = pool.Acquire(ctx)
		}
	}
}

// warmPatience is how many connect timeouts the warm-up waits in all for
// connections that timed out.
const warmPatience = 5

// connsAhead is how many connections each replica opens before the
// traffic: the plan's opening burst or, when the plan slows the Postgres
// link, all its pool holds. A connection opened under a latency pays it on
// every round trip of its handshake, and that decided whether a retry read
// before the request it retried committed: pg-standby-read / slow-charge's
// first op's retries, each on a connection of its own opened under the
// latency, always read after the first try's commit, a later op's retries,
// on connections already open, before it; on a busy machine neither op's
// did on some seeds, and its declared double charge was missed. (A
// statement's first prepare on a connection is such a round trip too:
// pg-standby-read's look-up runs unprepared.)
func connsAhead(plan workload.Plan, replicas int) []int {
	n := openingBurst(plan, replicas)
	if !slowsPostgres(plan) {
		return n
	}
	for i := range n {
		n[i] = math.MaxInt // warm caps it at the pool's size
	}
	return n
}

// slowsPostgres reports whether a fault of the plan puts latency on the
// app-to-Postgres link.
func slowsPostgres(plan workload.Plan) bool {
	for _, f := range plan.Faults() {
		if f.Inject.Action == api.PGLatency {
			return true
		}
	}
	return false
}

// openingBurst counts, for each of the replicas, the plan's ops that start
// at once when the traffic starts (no op to wait for, no delay, the first
// stage) and whose first try goes to it: the connections the replica needs
// open before the first request.
func openingBurst(plan workload.Plan, replicas int) []int {
	n := make([]int, max(replicas, 1))
	for _, op := range plan.Ops {
		if op.After >= 0 || op.Delay > 0 || op.Stage > 0 {
			continue
		}
		if r := op.TryAt(1).Replica; r >= 0 && r < len(n) {
			n[r]++
		}
	}
	return n
}
