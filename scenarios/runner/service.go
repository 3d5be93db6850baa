package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Service runs cells against a user's own service: Toxiproxy in front
// of each of its URLs, store faults on proxies the user routes its stores
// through, ground truth from its ledger.
type Service struct {
	target    scenarios.External
	toxi      *fault.Toxiproxy
	ledger    LedgerReader
	info      LedgerInfo
	pgLink    *fault.Link // nil: no store faults on Postgres
	redisLink *fault.Link
	runID     string
	linkSeq   int
	closers   []func() error // what OpenService opened for it, closed last
}

// LedgerInfo says what a ledger's rows name besides key, account and amount.
type LedgerInfo struct {
	ChargeIDs  bool // the charge id a success answer names
	AttemptIDs bool // the attempt (X-Idemchaos-Attempt) that made the charge
}

// NewService checks the target and takes hold of its store proxies.
// front is the harness's own Toxiproxy, whose proxies in front of the
// service listen on the harness's loopback; stores is the user's Toxiproxy
// holding the proxies named in t (nil: none).
func NewService(t scenarios.External, front, stores *fault.Toxiproxy, ledger LedgerReader, info LedgerInfo) (*Service, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	if stores == nil && (t.PostgresProxy != "" || t.RedisProxy != "") {
		return nil, errors.New("store proxies named but no Toxiproxy holding them")
	}
	r := &Service{target: t, toxi: front, ledger: ledger, info: info, runID: newRunID()}
	var err error
	if t.PostgresProxy != "" {
		r.pgLink, err = stores.Existing(t.PostgresProxy)
	}
	if err == nil && t.RedisProxy != "" {
		r.redisLink, err = stores.Existing(t.RedisProxy)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close heals the store proxies it used (they stay: they are the user's),
// then closes what OpenService opened.
func (r *Service) Close() error {
	var errs []error
	for _, l := range []*fault.Link{r.pgLink, r.redisLink} {
		if l != nil {
			errs = append(errs, l.Close())
		}
	}
	for _, c := range r.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// Ledger says what the service's ledger rows name.
func (r *Service) Ledger() LedgerInfo { return r.info }

// Execute runs a prepared cell and returns what it observed.
func (r *Service) Execute(ctx context.Context, c scenarios.Cell, plan workload.Plan) (scenarios.Record, error) {
	sc, err := c.Definition()
	if err != nil {
		return scenarios.Record{}, err
	}
	start := time.Now()
	obs, err := r.execute(ctx, c, sc, plan)
	if err != nil {
		return scenarios.Record{}, fmt.Errorf("run %s/%s: %w", c.Strategy, c.Scenario, err)
	}
	return scenarios.Record{Cell: c, Plan: plan, Obs: obs, Facts: &scenarios.Facts{}, Took: time.Since(start)}, nil
}

func (r *Service) execute(ctx context.Context, c scenarios.Cell, sc scenarios.Scenario, plan workload.Plan) (scenarios.Observation, error) {
	var obs scenarios.Observation
	keys := planKeys(plan)
	before, err := r.ledger.Charges(ctx, keys)
	if err != nil {
		return obs, err
	}
	fr, err := r.frontLinks()
	if err != nil {
		return obs, err
	}
	defer fr.close()
	t0 := time.Now()
	since := func() time.Duration { return time.Since(t0) }
	var injected atomic.Int64
	cl := client.New(client.Config{Routes: fr.route, Seed: c.Seed, Since: since, Policy: sc.Policy,
		Shape: r.target.Shape, Around: r.around(&injected)})
	attempts := cl.Run(ctx, plan)
	if sc.Probe {
		var probes []history.Attempt
		probes, obs.History.Quiesced, err = probe(ctx, r.heal, cl, plan, since, c.ClaimTTL)
		attempts = append(attempts, probes...)
	}
	cl.Close()
	if err := errors.Join(err, ctx.Err(), fr.close()); err != nil {
		return obs, err
	}
	obs.History.Seed, obs.History.Attempts = c.Seed, attempts
	obs.History.ClaimTimeout, obs.History.KeyTTL = c.ClaimTTL, c.KeyTTL
	obs.Injected = int(injected.Load())
	charges, err := r.ledger.Charges(ctx, keys)
	obs.History.End = since()
	obs.Ledger = history.Ledger{Charges: charges, RowsAtStart: len(before),
		NoAttemptIDs: !r.info.AttemptIDs, NoChargeIDs: !r.info.ChargeIDs}
	return obs, err
}

// around applies a try's store fault as it is sent and heals it when the
// try ends: from outside, "mid-request" is the best timing there is.
func (r *Service) around(injected *atomic.Int64) func(workload.Op, int) func() {
	return func(op workload.Op, try int) func() {
		in, err := api.ParseInjection(op.TryAt(try).Inject)
		if err != nil {
			return nil
		}
		l := r.pgLink
		if in.Action == api.RedisCut {
			l = r.redisLink
		}
		if l == nil || l.Cut() != nil {
			return nil
		}
		injected.Add(1)
		return func() { _ = l.Heal() }
	}
}

func (r *Service) heal() error {
	var errs []error
	for _, l := range []*fault.Link{r.pgLink, r.redisLink} {
		if l != nil {
			errs = append(errs, l.Heal())
		}
	}
	return errors.Join(errs...)
}

// planKeys lists the distinct keys a plan uses.
func planKeys(plan workload.Plan) []string {
	var keys []string
	for _, op := range plan.Ops {
		if op.Key != "" {
			keys = append(keys, op.Key)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
