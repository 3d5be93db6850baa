package engine

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// Env is what a Builtin needs from the outside world.
type Env struct {
	PostgresDSN string // a database the Builtin owns: it is migrated and emptied per cell
	RedisURL    string
	// MySQLURL, when set, is a MariaDB database the Builtin owns as it owns
	// PostgresDSN's (mysql://...): the InnoDB strategies' cells run there.
	// "": a cell of theirs is an error.
	MySQLURL  string
	Toxiproxy *fault.Toxiproxy
	// Replicated, when set, is the replicated Postgres whose primary
	// PostgresDSN names, its standby streaming through ReplicationLink:
	// the scenarios that need it run here.
	Replicated      *provision.Replicated
	ReplicationLink *fault.Link
	TempDir         string    // base of a replicated Redis's dirs; "" = os.TempDir()
	Log             io.Writer // where a replicated Redis says what it starts; nil = nowhere
}

// Builtin deploys the built-in strategies, one cell after another, on one
// set of stores: per cell an empty ledger, the strategy's replicas on their
// own store clients behind Toxiproxy, the plan's faults armed, then the
// ground truth read back.
type Builtin struct {
	env     Env
	pool    *pgxpool.Pool // the runner's own connections: reset and ground truth
	mysql   *sql.DB       // the same on Env.MySQLURL; nil without
	redis   *redis.Client
	runID   string
	cells   int
	linkSeq int
}

// NewBuiltin connects to the stores and prepares the ledger schema.
func NewBuiltin(ctx context.Context, env Env) (*Builtin, error) {
	cfg, err := pgxpool.ParseConfig(env.PostgresDSN)
	if err != nil {
		return nil, fmt.Errorf("postgres dsn: %w", err)
	}
	cfg.MaxConns = controlConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := ledger.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	if env.Replicated != nil {
		if _, err := pool.Exec(ctx, canarySchema); err != nil {
			pool.Close()
			return nil, fmt.Errorf("crash marks: %w", err)
		}
	}
	var mdb *sql.DB
	if env.MySQLURL != "" {
		if mdb, err = openInnoDB(ctx, env.MySQLURL); err != nil {
			pool.Close()
			return nil, err
		}
	}
	rdb, err := controlClient(env.RedisURL, controlConns)
	if err != nil {
		pool.Close()
		if mdb != nil {
			_ = mdb.Close()
		}
		return nil, err
	}
	return &Builtin{env: env, pool: pool, mysql: mdb, redis: rdb, runID: newRunID()}, nil
}

// controlConns sizes the Builtin's own pools (reset and ground truth), set
// explicitly: pgxpool would take 4 on two cores, go-redis 20.
const controlConns = 4

// newRunID names this runner's proxies and Redis keys apart from any other
// runner sharing the same Toxiproxy or Redis.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Close releases the Builtin's connections.
func (r *Builtin) Close() error {
	r.pool.Close()
	var err error
	if r.mysql != nil {
		err = r.mysql.Close()
	}
	return errors.Join(err, r.redis.Close())
}

// Execute runs a prepared cell and returns what it observed.
func (r *Builtin) Execute(ctx context.Context, c scenarios.Cell, plan workload.Plan) (scenarios.Record, error) {
	sc, err := c.Definition()
	if err != nil {
		return scenarios.Record{}, err
	}
	info, err := design.Lookup(c.Strategy)
	if err != nil {
		return scenarios.Record{}, err
	}
	start := time.Now()
	obs, hidden, err := r.execute(ctx, c, sc, info, plan)
	if err != nil {
		return scenarios.Record{}, err
	}
	return scenarios.Record{Cell: c, Plan: plan, Obs: obs, Facts: new(scenarios.FactsOf(info)), Hidden: hidden, Took: time.Since(start)}, nil
}

// execute prepares the ledger, deploys the target, runs the plan (and the
// probes) and collects history and ground truth.
func (r *Builtin) execute(ctx context.Context, c scenarios.Cell, sc scenarios.Scenario, info design.Info,
	plan workload.Plan) (scenarios.Observation, int, error) {
	var obs scenarios.Observation
	if sc.Replicated && r.env.Replicated == nil {
		return obs, 0, fmt.Errorf("%s: %w", sc.Name, errNoReplication)
	}
	sl, err := r.ledgerOf(info.MySQL)
	if err != nil {
		return obs, 0, fmt.Errorf("%s: %w", c.Strategy, err)
	}
	r.cells++
	prefix := fmt.Sprintf("ic:%s:%d:", r.runID, r.cells)
	defer DropKeys(r.redis, prefix)
	rows, err := sl.prepare(ctx, plan.Accounts)
	if err != nil {
		return obs, 0, err
	}
	var fo *failoverRun
	if sc.Failover {
		if fo, err = r.startFailover(ctx, prefix); err != nil {
			return obs, 0, err
		}
		defer fo.close()
	}
	t0 := time.Now()
	since := func() time.Duration { return time.Since(t0) }
	spec := cellSpec(c, sc, plan, prefix, since, fo.sentinel())
	spec.InnoDB = info.MySQL
	d, err := r.deploy(ctx, spec)
	if err != nil {
		return obs, 0, err
	}
	repl := r.newCellReplication(ctx, prefix, since, d.resetStores)
	if err := repl.start(); err != nil { // the standby holds this cell's empty ledger before any lag
		d.close()
		return obs, 0, err
	}
	hold := c.Holds(sc, plan)
	armInjections(d.failpoints, withOps(plan, hold.Ops), links{pg: d.pgLink, redis: d.redisLink, repl: repl})
	d.trace.armLeave(d.failpoints) // after the gate and the injections: what they held is recorded
	repl.watch()
	heal := func() error { return errors.Join(repl.heal(), d.heal()) }
	cl := client.New(client.Config{Routes: d.route, Seed: c.Seed, Since: since, Policy: sc.Policy, Around: gateAround(d.gate),
		InFlight: c.Profile.InFlightSet()})
	attempts, topUps := runStages(ctx, cl, plan, sl.fund, fo.events(since), since)
	var probes []history.Attempt
	probes, obs.History.Quiesced, err = afterTraffic(ctx, cl, sc, plan, attempts, heal, since, c.ClaimTTL, c.Profile)
	attempts = append(attempts, probes...)
	if err == nil && ctx.Err() == nil && len(hold.Ops) > 0 {
		attempts = append(attempts, holdProbes(ctx, cl, hold)...)
	}
	cl.Close()
	cl.FillLate(attempts)
	closeErr := d.close() // waits for in-flight handlers: the stores are final after this
	if err := errors.Join(err, ctx.Err(), closeErr); err != nil {
		return obs, 0, fmt.Errorf("run %s/%s: %w", c.Strategy, c.Scenario, err)
	}
	attempts, hidden := Merge(attempts, d.entries())
	obs.History.Seed, obs.History.Attempts = c.Seed, attempts
	obs.History.ClaimTimeout, obs.History.KeyTTL = c.ClaimTTL, c.KeyTTL
	obs.Injected = d.failpoints.Fired()["inject"]
	obs.Trace, obs.TopUps, obs.Replication = d.trace.events(), topUps, repl.observation()
	if d.gate != nil {
		obs.GateHeld, _ = d.gate.Stats()
	}
	obs.Failover = fo.observed()
	obs.Ledger, err = groundTruth(ctx, sl.read, fo.truthOr(r.redis), info.Redis, prefix)
	obs.History.End = since() // after the reads: a record missing then may have expired by then
	obs.Ledger.RowsAtStart = rows
	return obs, hidden, err
}

// cellSpec is how a cell's target is deployed: the replicas' pools warmed
// ahead of the plan's traffic (connsAhead).
func cellSpec(c scenarios.Cell, sc scenarios.Scenario, plan workload.Plan, prefix string, since func() time.Duration,
	sentinel *SentinelSpec) deploySpec {
	return deploySpec{Strategy: c.Strategy, Replicas: c.Replicas, Prefix: prefix, Profile: c.Profile,
		ClaimTTL: c.ClaimTTL, KeyTTL: c.KeyTTL, Gate: sc.Gate, Since: since, Sentinel: sentinel,
		Warm: connsAhead(plan, c.Replicas)}
}

// fund pays a top-up into a built-in target's ledger directly, as money
// paid in by another channel than the API under test.
func (l sqlLedger) fund(ctx context.Context, t workload.TopUp) scenarios.TopUpDone {
	var done scenarios.TopUpDone
	ctx, cancel := context.WithTimeout(ctx, topUpTimeout)
	defer cancel()
	if err := l.topUp(ctx, t.Account, t.Amount); err != nil {
		done.Err = err.Error()
	}
	return done
}

// afterTraffic sends, on the client of the main traffic, what follows it:
// the store links are healed, every key that completed gets its replay
// probes (scenarios.ReplayPlan), and, for a scenario with Probe, once the
// claim timeout (and a quarter) has passed since the heal, every key gets
// one more try that must replay or execute (scenarios.ProbePlan), and a
// key whose probe got the in-flight status or a 5xx gets one confirming
// probe after scenarios.ConfirmWait (scenarios.ConfirmPlan). It returns
// those attempts, the replay probes marked, and when the links
// healed (0 without Probe: the run has no probe phase). Every probe is a
// single try bounded by the client's per-try timeout, so this is bounded by
// the number of keys and the claim timeout.
func afterTraffic(ctx context.Context, cl *client.Client, sc scenarios.Scenario, plan workload.Plan,
	attempts []history.Attempt, heal func() error, since func() time.Duration, claim time.Duration, profile api.Profile) ([]history.Attempt, time.Duration, error) {
	if err := heal(); err != nil {
		return nil, 0, err
	}
	var quiesced time.Duration
	var wait *time.Timer
	if sc.Probe {
		quiesced = since()
		wait = time.NewTimer(claim + claim/4)
		defer wait.Stop()
	}
	replay := scenarios.ReplayPlan(plan, attempts)
	out := cl.Run(ctx, replay)
	for i := range out {
		out[i].ReplayProbe = true
	}
	if !sc.Probe {
		return out, 0, ctx.Err()
	}
	select {
	case <-wait.C:
	case <-ctx.Done():
		return out, quiesced, ctx.Err()
	}
	probe := scenarios.ProbePlan(plan, scenarios.NextOp(plan, replay))
	probes := cl.Run(ctx, probe)
	out = append(out, probes...)
	confirm := scenarios.ConfirmPlan(plan, probes, profile, scenarios.NextOp(plan, replay, probe))
	if len(confirm.Ops) == 0 || ctx.Err() != nil {
		return out, quiesced, ctx.Err()
	}
	pause := time.NewTimer(scenarios.ConfirmWait(claim))
	defer pause.Stop()
	select {
	case <-pause.C:
	case <-ctx.Done():
		return out, quiesced, ctx.Err()
	}
	return append(out, cl.Run(ctx, confirm)...), quiesced, nil
}
