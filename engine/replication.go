package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// Bounds of the standby watch.
const (
	standbyPollEvery = 5 * time.Millisecond
	standbyWatchMax  = 2 * time.Minute
	restartLimit     = 30 * time.Second
	catchUpLimit     = 30 * time.Second
)

// canarySchema is the harness's own table on the replicated primary: the
// marks it commits around a crash, to prove what the crash lost.
const canarySchema = `CREATE TABLE IF NOT EXISTS crash_marks (mark text PRIMARY KEY)`

// cellReplication is one cell's view of the replicated Postgres: the lag
// on its replication link, the crashes of its primary, and when the
// standby showed each key.
type cellReplication struct {
	ctx    context.Context
	b      *Builtin
	prefix string // the cell's, before every mark
	since  func() time.Duration
	reset  func() // drops the store connections a crash broke

	mu      sync.Mutex
	lagging bool
	obs     scenarios.Replication
	seen    map[string]time.Duration
	stop    chan struct{}
	done    chan struct{}
}

func (r *Builtin) newCellReplication(ctx context.Context, prefix string, since func() time.Duration, reset func()) *cellReplication {
	if r.env.Replicated == nil {
		return nil
	}
	return &cellReplication{ctx: ctx, b: r, prefix: prefix, since: since, reset: reset, seen: map[string]time.Duration{}}
}

// carries reports whether the cell can carry a replication action.
func (c *cellReplication) carries(a api.Action) bool {
	return c != nil && (a == api.StandbyLag || a == api.PGCrash)
}

// arm arms the hooks of one replication injection for the attempt.
func (c *cellReplication) arm(set *failpoint.Set, in api.Injection, match failpoint.Match) {
	switch in.Action {
	case api.StandbyLag:
		// the link is slow before the traffic starts: a Toxiproxy call in
		// the request would slow the very try whose retry must come soon
		c.lag(in.Arg)
		set.Arm("inject", in.Point, match, func(context.Context, failpoint.Hit) func() { return nil })
	case api.PGCrash:
		// everything before the request's commit is made durable first, so
		// that the crash is about the commits of its own moment
		set.Arm("mark", api.BeforeCommit, match, func(_ context.Context, h failpoint.Hit) func() {
			c.mark(h.AttemptID, true)
			_ = c.b.env.Replicated.HoldWALWriter()
			return nil
		})
		set.Arm("inject", in.Point, match, func(_ context.Context, h failpoint.Hit) func() {
			c.crash(h.AttemptID)
			return nil
		})
	}
}

// lag puts the latency on the replication link, once, when the cell's
// faults are armed: it stays until the traffic is over (heal).
func (c *cellReplication) lag(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lagging {
		return
	}
	if err := c.b.env.ReplicationLink.Inject(fault.Latency, d); err == nil {
		c.lagging = true
	}
}

// mark commits one mark on the primary, synchronously (which writes out
// the WAL of every commit before it) or with synchronous_commit off.
func (c *cellReplication) mark(name string, durable bool) {
	ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
	defer cancel()
	_ = pgx.BeginFunc(ctx, c.b.pool, func(tx pgx.Tx) error {
		if !durable {
			if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO crash_marks VALUES ($1)`, c.markName(name, durable))
		return err
	})
}

func (c *cellReplication) markName(attempt string, durable bool) string {
	if durable {
		return c.prefix + attempt + "/durable"
	}
	return c.prefix + attempt + "/canary"
}

// crash commits the canary asynchronously, kills the primary, restarts it
// and waits until it answers, then checks which marks survived.
func (c *cellReplication) crash(attempt string) {
	c.mark(attempt, false)
	topo := c.b.env.Replicated
	if err := topo.Kill(); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, restartLimit)
	defer cancel()
	err := topo.Restart(ctx)
	c.b.pool.Reset()
	c.reset()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.obs.Crashes++
	if err != nil {
		return
	}
	durable, canary := c.survived(ctx, attempt)
	if !canary {
		c.obs.CanariesLost++
	}
	if !durable {
		c.obs.DurableLost++
	}
}

// survived reports whether the attempt's two marks are on the primary.
func (c *cellReplication) survived(ctx context.Context, attempt string) (durable, canary bool) {
	rows, err := c.b.pool.Query(ctx, `SELECT mark FROM crash_marks WHERE mark = ANY($1)`,
		[]string{c.markName(attempt, true), c.markName(attempt, false)})
	if err != nil {
		return true, true // unknown: claim nothing was lost
	}
	marks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return true, true
	}
	for _, m := range marks {
		durable = durable || m == c.markName(attempt, true)
		canary = canary || m == c.markName(attempt, false)
	}
	return durable, canary
}

// watch polls the standby for the keys of the charges it holds, until
// unwatch, noting when each first showed.
func (c *cellReplication) watch() {
	if c == nil {
		return
	}
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.done)
		ctx, cancel := context.WithTimeout(c.ctx, standbyWatchMax)
		defer cancel()
		conn, err := pgx.Connect(ctx, c.b.env.Replicated.StandbyURL)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		tick := time.NewTicker(standbyPollEvery)
		defer tick.Stop()
		for {
			c.poll(ctx, conn)
			select {
			case <-c.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

func (c *cellReplication) poll(ctx context.Context, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, `SELECT DISTINCT idempotency_key FROM charges WHERE idempotency_key IS NOT NULL`)
	if err != nil {
		return
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	at := c.since()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if _, ok := c.seen[k]; !ok {
			c.seen[k] = at
		}
	}
}

// heal stops the watch, takes the lag off the replication link and waits
// until the standby has replayed everything the primary wrote: the
// probes after the traffic meet a healed topology, as they meet healed
// store links.
func (c *cellReplication) heal() error {
	if c == nil {
		return nil
	}
	if c.stop != nil {
		close(c.stop)
		<-c.done
		c.stop = nil
	}
	c.mu.Lock()
	c.lagging = false
	err := errors.Join(c.b.env.ReplicationLink.Heal(), c.b.env.Replicated.ReleaseWALWriter())
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.caughtUp()
}

// start waits until the standby has replayed the cell's fresh ledger (and,
// in a new topology, its schema): a lagging standby must not show the
// rows of an earlier cell, whose keys the same seed shares.
func (c *cellReplication) start() error {
	if c == nil {
		return nil
	}
	return c.caughtUp()
}

// caughtUp waits until the standby has replayed the primary's WAL up to
// a commit made now, synchronously, of a write (a transaction that wrote
// nothing commits without waiting for its WAL): that commit writes out
// everything before it, asynchronous commits included (which the WAL
// writer would write only 10 s later), and ends on a record boundary,
// which the flush position alone need not (the standby cannot replay
// half a record).
func (c *cellReplication) caughtUp() error {
	ctx, cancel := context.WithTimeout(c.ctx, catchUpLimit)
	defer cancel()
	var lsn string
	_, err := c.b.pool.Exec(ctx, `INSERT INTO crash_marks VALUES ($1) ON CONFLICT (mark) DO UPDATE SET mark = excluded.mark`,
		c.prefix+"sync") // always a new row version: a commit that wrote nothing is not flushed
	if err == nil {
		err = c.b.pool.QueryRow(ctx, `SELECT pg_current_wal_flush_lsn()::text`).Scan(&lsn)
	}
	if err != nil {
		return fmt.Errorf("primary wal position: %w", err)
	}
	conn, err := pgx.Connect(ctx, c.b.env.Replicated.StandbyURL)
	if err != nil {
		return fmt.Errorf("standby: %w", err)
	}
	defer conn.Close(context.Background())
	for {
		var done bool
		err := conn.QueryRow(ctx, `SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)`, lsn).Scan(&done)
		switch {
		case err != nil:
			return fmt.Errorf("standby did not catch up with %s: %w", lsn, err)
		case done:
			return nil
		}
		time.Sleep(standbyPollEvery)
	}
}

// observation is what the cell saw; nil for a cell off the topology.
func (c *cellReplication) observation() *scenarios.Replication {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.obs
	if len(c.seen) > 0 {
		out.StandbySeen = c.seen
	}
	return &out
}

// Replication is the replicated Postgres a Session shares between its
// cells that need it, with the Builtin that runs them, one at a time.
type Replication struct {
	Topology *provision.Replicated
	Link     *fault.Link
	Builtin  *Builtin
	mu       sync.Mutex
}

// StartReplication starts the replicated Postgres from local binaries,
// its replication stream through a link of toxi, and a Builtin on it.
func StartReplication(ctx context.Context, cfg provision.ReplicatedConfig, toxi *fault.Toxiproxy, redisURL string) (*Replication, error) {
	rp := &Replication{}
	cfg.Link = func(upstream string) (string, error) {
		var err error
		rp.Link, err = toxi.Link("replication-"+newRunID(), upstream)
		if err != nil {
			return "", err
		}
		return rp.Link.Listen, nil
	}
	topo, err := provision.StartReplicated(ctx, cfg)
	if err != nil {
		return nil, errors.Join(err, rp.closeLink())
	}
	rp.Topology = topo
	rp.Builtin, err = NewBuiltin(ctx, Env{PostgresDSN: topo.PrimaryURL, RedisURL: redisURL, Toxiproxy: toxi,
		Replicated: topo, ReplicationLink: rp.Link})
	if err != nil {
		return nil, errors.Join(err, rp.Close())
	}
	return rp, nil
}

// Execute runs a cell on the topology, one cell at a time: a crash or a
// lag is the whole topology's.
func (rp *Replication) Execute(ctx context.Context, c scenarios.Cell, plan workload.Plan) (scenarios.Record, error) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.Builtin.Execute(ctx, c, plan)
}

// Close stops the Builtin, the topology and the link.
func (rp *Replication) Close() error {
	var errs []error
	if rp.Builtin != nil {
		errs = append(errs, rp.Builtin.Close())
	}
	errs = append(errs, rp.Topology.Close(), rp.closeLink())
	return errors.Join(errs...)
}

func (rp *Replication) closeLink() error {
	if rp.Link == nil {
		return nil
	}
	return rp.Link.Close()
}

// needsReplication reports whether the cell's scenario runs on the
// replicated Postgres.
func needsReplication(c scenarios.Cell) bool {
	sc, err := c.Definition()
	return err == nil && sc.Replicated
}

var errNoReplication = fmt.Errorf("this scenario runs on the replicated Postgres, which this runner has not")
