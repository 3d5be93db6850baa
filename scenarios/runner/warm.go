package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/sim/workload"
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
