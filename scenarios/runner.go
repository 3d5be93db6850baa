package scenarios

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// Env is what the runner needs from the outside world.
type Env struct {
	PostgresDSN string // a database the runner owns: it is migrated and emptied per cell
	RedisURL    string
	Toxiproxy   *fault.Toxiproxy
	Log         io.Writer // nil: discard
}

// Runner runs cells one after another on one set of stores.
type Runner struct {
	env     Env
	pool    *pgxpool.Pool // the runner's own connections: reset and ground truth
	redis   *redis.Client
	runID   string
	cells   int
	linkSeq int
}

// NewRunner connects to the stores and prepares the ledger schema.
func NewRunner(ctx context.Context, env Env) (*Runner, error) {
	if env.Log == nil {
		env.Log = io.Discard
	}
	pool, err := pgxpool.New(ctx, env.PostgresDSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := ledger.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	opts, err := redis.ParseURL(env.RedisURL)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opts.MaxRetries = -1
	return &Runner{env: env, pool: pool, redis: redis.NewClient(opts), runID: newRunID()}, nil
}

// newRunID names this runner's proxies and Redis keys apart from any other
// runner sharing the same Toxiproxy or Redis.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Close releases the runner's connections.
func (r *Runner) Close() error {
	r.pool.Close()
	return r.redis.Close()
}

// Cell is one (strategy, scenario, seed) run.
type Cell struct {
	Strategy string        `json:"strategy"`
	Scenario string        `json:"scenario"`
	Seed     uint64        `json:"seed"`
	Profile  api.Profile   `json:"profile"`
	Replicas int           `json:"replicas"`     // default: the scenario's, else 1
	ClaimTTL time.Duration `json:"claim_ttl_ns"` // default: the scenario's, else 5s
	KeyTTL   time.Duration `json:"key_ttl_ns"`   // default: the scenario's, else 24h
	// Custom is the scenario when it came from a file; Scenario is its name.
	Custom *spec.Spec `json:"custom,omitempty"`
	// Target is the user's own service under test; nil: the built-in
	// Strategy, deployed by the runner.
	Target *External `json:"target,omitempty"`
}

// scenario is the cell's scenario: from its file spec, else the catalog.
func (c Cell) scenario() (Scenario, error) {
	if c.Custom != nil {
		return FromSpec(*c.Custom)
	}
	return Lookup(c.Scenario)
}

// Run executes one cell and checks it. An error means the harness could not
// run the cell (environment), not that the target misbehaved.
func (r *Runner) Run(ctx context.Context, c Cell) (Result, error) {
	c, plan, err := Prepare(c)
	if err != nil {
		return Result{}, err
	}
	rec, err := r.Execute(ctx, c, plan)
	if err != nil {
		return Result{}, err
	}
	return Judge(rec), nil
}

// Prepare fills the cell's defaults from its scenario and derives the plan
// and fault schedule from the seed alone: the same cell always gets the same
// plan, which can be saved before anything runs.
func Prepare(c Cell) (Cell, workload.Plan, error) {
	sc, err := c.scenario()
	if err != nil {
		return c, workload.Plan{}, err
	}
	if c.Target != nil {
		if reason := c.Target.Skip(sc); reason != "" {
			return c, workload.Plan{}, &SkipError{Scenario: sc.Name, Reason: reason}
		}
	}
	c = c.withDefaults(sc)
	plan := sc.Plan(workload.Seeded(c.Seed, "plan/"+sc.Name), Params{Replicas: c.Replicas})
	if c.Target != nil {
		plan = c.Target.adapt(plan)
	}
	if err := plan.Validate(); err != nil {
		return c, plan, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	return c, plan, nil
}

// Record is everything a finished cell observed: enough to judge it again,
// offline.
type Record struct {
	Cell   Cell          `json:"cell"`
	Plan   workload.Plan `json:"-"` // saved apart, before the run
	Obs    Observation   `json:"observation"`
	Hidden int           `json:"hidden_attempts"`
	Took   time.Duration `json:"took_ns"`
}

// Execute runs a prepared cell and returns what it observed.
func (r *Runner) Execute(ctx context.Context, c Cell, plan workload.Plan) (Record, error) {
	sc, err := c.scenario()
	if err != nil {
		return Record{}, err
	}
	start := time.Now()
	obs, hidden, err := r.execute(ctx, c, sc, plan)
	if err != nil {
		return Record{}, err
	}
	return Record{Cell: c, Plan: plan, Obs: obs, Hidden: hidden, Took: time.Since(start)}, nil
}

// withDefaults fills the cell from the scenario's needs.
func (c Cell) withDefaults(sc Scenario) Cell {
	if c.Target != nil {
		return c.externalDefaults()
	}
	c.Replicas = max(c.Replicas, sc.Target.Replicas, 1)
	if c.Profile.Name == "" {
		c.Profile = api.IETF
	}
	if c.ClaimTTL <= 0 {
		c.ClaimTTL = sc.Target.ClaimTTL
	}
	if c.ClaimTTL <= 0 {
		c.ClaimTTL = defaultClaimTTL
	}
	if c.KeyTTL <= 0 {
		c.KeyTTL = sc.Target.KeyTTL
	}
	return c
}

// defaultClaimTTL is the claim lifetime when a scenario does not shorten it.
const defaultClaimTTL = 5 * time.Second

// execute prepares the ledger, deploys the target, runs the plan (and the
// probes) and collects history and ground truth.
func (r *Runner) execute(ctx context.Context, c Cell, sc Scenario, plan workload.Plan) (Observation, int, error) {
	var obs Observation
	r.cells++
	prefix := fmt.Sprintf("ic:%s:%d:", r.runID, r.cells)
	defer DropKeys(r.redis, prefix)
	rows, err := PrepareLedger(ctx, r.pool, plan.Accounts)
	if err != nil {
		return obs, 0, err
	}
	t0 := time.Now()
	since := func() time.Duration { return time.Since(t0) }
	d, err := r.deploy(ctx, deploySpec{Strategy: c.Strategy, Replicas: c.Replicas, Prefix: prefix, Profile: c.Profile,
		ClaimTTL: c.ClaimTTL, KeyTTL: c.KeyTTL, Gate: sc.Gate, Since: since})
	if err != nil {
		return obs, 0, err
	}
	if err := d.armInjections(plan, client.AttemptID); err != nil {
		d.close()
		return obs, 0, err
	}
	cl := client.New(client.Config{Routes: d.route, Seed: c.Seed, Since: since, Policy: sc.Policy})
	attempts := cl.Run(ctx, plan)
	if sc.Probe {
		var probes []history.Attempt
		probes, obs.History.Quiesced, err = probe(ctx, d.heal, cl, plan, since, c.ClaimTTL)
		attempts = append(attempts, probes...)
	}
	cl.Close()
	closeErr := d.close() // waits for in-flight handlers: the stores are final after this
	if err := errors.Join(err, ctx.Err(), closeErr); err != nil {
		return obs, 0, fmt.Errorf("run %s/%s: %w", c.Strategy, c.Scenario, err)
	}
	attempts, hidden := Merge(attempts, d.entries())
	obs.History.Seed, obs.History.Attempts = c.Seed, attempts
	obs.History.ClaimTimeout, obs.History.KeyTTL = c.ClaimTTL, c.KeyTTL
	obs.Injected = d.failpoints.Fired()["inject"]
	obs.Trace = d.trace.events()
	if d.gate != nil {
		obs.GateHeld, _ = d.gate.Stats()
	}
	obs.Ledger, err = GroundTruth(ctx, r.pool, r.redis, c.Strategy, prefix)
	obs.History.End = since() // after the reads: a record missing then may have expired by then
	obs.Ledger.RowsAtStart = rows
	return obs, hidden, err
}

// probe heals every store link, waits out the claim timeout and sends one
// more try of every key: the answer must be a replay or an execution.
func probe(ctx context.Context, heal func() error, cl *client.Client, plan workload.Plan,
	since func() time.Duration, claim time.Duration) ([]history.Attempt, time.Duration, error) {
	if err := heal(); err != nil {
		return nil, 0, err
	}
	quiesced := since()
	t := time.NewTimer(claim + claim/4)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, quiesced, ctx.Err()
	}
	return cl.Run(ctx, probePlan(plan)), quiesced, nil
}

// probePlan has one single-try op per key of plan, numbered after its ops.
func probePlan(plan workload.Plan) workload.Plan {
	var p workload.Plan
	seen := map[string]bool{}
	next := len(plan.Ops)
	for _, op := range plan.Ops {
		if op.Key == "" || seen[op.Key] {
			continue
		}
		seen[op.Key] = true
		probe := workload.Op{ID: next, Key: op.Key, Account: op.Account, Amount: op.Amount, Currency: op.Currency,
			Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: op.TryAt(1).Replica}}}
		p.Ops = append(p.Ops, probe)
		next++
	}
	return p
}

// Judge checks a finished cell; it is pure, so a saved record judged again
// gives the same result.
func Judge(rec Record) Result {
	c, plan, obs, hidden, took := rec.Cell, rec.Plan, rec.Obs, rec.Hidden, rec.Took
	sc, err := c.scenario()
	if err != nil {
		return Result{Strategy: c.Strategy, Scenario: c.Scenario, Seed: c.Seed, Verdict: Inconclusive,
			Assumptions: []string{err.Error()}}
	}
	obs.History = check.Resolve(obs.History, obs.Ledger)
	info, _ := strategy.Lookup(c.Strategy)
	twoStores, expected, assume := info.Redis, Expected(c.Strategy, sc.Name, c.Profile), sc.Assume
	if c.Target != nil { // a user's service: must pass, judged on what the plan exercised
		twoStores, expected, assume = false, nil, assumeFromPlan(plan)
	}
	rep := check.Run(check.Input{History: obs.History, Ledger: obs.Ledger, Profile: c.Profile, TwoStores: twoStores})
	res := Result{Strategy: c.Strategy, Scenario: sc.Name, Seed: c.Seed, Profile: c.Profile.Name, Replicas: c.Replicas,
		Anomalies: rep.Counts, Overcharged: rep.Overcharged, Requests: len(obs.History.Attempts),
		DurationMS: took.Milliseconds(), Expected: expected, Faults: len(plan.Faults()),
		Findings: rep.Findings, Timelines: timelines(rep.Findings, obs), Repro: c.Repro()}
	res.Assumptions = assumeGeneric(obs, hidden)
	switch {
	case len(res.Assumptions) > 0:
		res.Verdict = Inconclusive
	case rep.Failed():
		res.Verdict = Fail
	default:
		if assume != nil {
			res.Assumptions = assume(obs)
		}
		res.Verdict = Pass
		if len(res.Assumptions) > 0 {
			res.Verdict = Inconclusive
		}
	}
	res.AsExpected = matches(res)
	return res
}
