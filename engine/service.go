package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Service runs cells against a user's own service: Toxiproxy in front
// of each of its URLs, store faults on proxies the user routes its stores
// through, ground truth from its ledger. A service that speaks the
// failpoint protocol (External.Failpoints) gets the control URL of a
// failpoint.Set on every request, armed per cell as a built-in deployment's
// (service_failpoints.go); without it, store faults are applied around the
// request, from outside.
type Service struct {
	target    scenarios.External
	toxi      *fault.Toxiproxy
	ledger    LedgerReader
	info      LedgerInfo
	pgLink    *fault.Link // nil: no store faults on Postgres
	redisLink *fault.Link
	dynamo    *fault.Link // the link to its DynamoDB
	runID     string
	linkSeq   int
	closers   []func() error // what OpenService opened for it, closed last

	timingMu  sync.Mutex
	timing    *scenarios.Timing // measured once, by Timing
	timingErr error

	answers atomic.Int64 // HTTP answers the service gave this Service's runs, measuring included
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
	if stores == nil && (t.PostgresProxy != "" || t.RedisProxy != "" || t.DynamoDBProxy != "") {
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
	if err == nil && t.DynamoDBProxy != "" {
		r.dynamo, err = stores.Existing(t.DynamoDBProxy)
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
	for _, l := range r.links() {
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
	if err := r.reachable(ctx); err != nil {
		return scenarios.Record{}, err
	}
	start := time.Now()
	obs, plan, err := r.execute(ctx, c, sc, plan)
	if err == nil {
		err = answered(obs, r.target.URLs, r.answers.Load())
		r.answers.Add(int64(countAnswers(obs.History.Attempts)))
	}
	if err != nil {
		return scenarios.Record{}, fmt.Errorf("run %s/%s: %w", c.Strategy, c.Scenario, err)
	}
	return scenarios.Record{Cell: c, Plan: plan, Obs: obs, Facts: &scenarios.Facts{}, Took: time.Since(start)}, nil
}

// dialTimeout bounds the check that something listens at a target URL.
const dialTimeout = 2 * time.Second

// reachable checks that something accepts connections at every URL of the
// target, before anything is sent: a service that is down is an
// environment error, never a run that proves nothing.
func (r *Service) reachable(ctx context.Context) error {
	for i, u := range r.target.URLs {
		host, _, err := r.target.Endpoint(i)
		if err != nil {
			return err
		}
		d := net.Dialer{Timeout: dialTimeout}
		conn, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			return fmt.Errorf("target %s: nothing answers there (%v); is the service running?", u, err)
		}
		conn.Close()
	}
	return nil
}

// answered is an environment error when no request of the run got an
// HTTP answer, the ledger holds no charge under the run's keys and the
// service never answered an earlier run either (before): it takes
// connections but does nothing. A service that charged (the run's keys
// are fresh: those charges are its own work) but answered nothing in time
// is judged like any other; so is one that answered earlier runs and
// nothing in this one, which proves nothing (inconclusive: too slow for
// the scenario's timings on a loaded machine, or stopped; the assumption
// says so). (Target URLs carry no password: External.Check refuses one.)
func answered(obs scenarios.Observation, urls []string, before int64) error {
	if countAnswers(obs.History.Attempts) > 0 || len(obs.Ledger.Charges) > 0 || before > 0 {
		return nil
	}
	return fmt.Errorf("target never answered: none of the %d requests got an HTTP answer from %s; is it an HTTP service, and is it up?",
		len(obs.History.Attempts), strings.Join(urls, ", "))
}

// countAnswers counts the attempts that got an HTTP answer.
func countAnswers(atts []history.Attempt) int {
	n := 0
	for _, a := range atts {
		if a.Status != 0 {
			n++
		}
	}
	return n
}

// execute runs the plan against the service and returns what it observed,
// and the plan as it ran: a race-hunting cell's rounds end once its
// overlaps reach its power aim or its budget is spent (powered), and the
// rounds it did not send are left out.
func (r *Service) execute(ctx context.Context, c scenarios.Cell, sc scenarios.Scenario, plan workload.Plan) (scenarios.Observation, workload.Plan, error) {
	var obs scenarios.Observation
	hold := c.Holds(sc, plan)
	keys := planLookup(withOps(plan, hold.Ops))
	before, err := readCharges(ctx, r.ledger, keys)
	if err != nil {
		return obs, plan, err
	}
	fr, err := r.frontLinks()
	if err != nil {
		return obs, plan, err
	}
	defer fr.close()
	t0 := time.Now()
	since := func() time.Duration { return time.Since(t0) }
	var injected atomic.Int64
	cuts := &cutLog{}
	cfg := client.Config{Routes: fr.route, Seed: c.Seed, Since: since, Policy: c.ClientPolicy(sc), Shape: r.target.Shape,
		InFlight: c.Profile.InFlightSet()}
	var fp *serviceFailpoints
	if r.target.Failpoints { // the service fires the faults at its points
		if fp, err = r.armFailpoints(sc, withOps(plan, hold.Ops), since, cuts); err != nil {
			return obs, plan, err
		}
		defer fp.close()
		cfg.Header, cfg.Around = fp.header, gateAround(fp.gate)
	} else { // store faults from outside, around the request
		lat := &outsideLatency{}
		defer lat.stop()
		cfg.Around = r.around(&injected, lat, cuts)
	}
	cl := client.New(cfg)
	defer cl.Close()
	attempts, topUps, stages := runStagesWhile(ctx, cl, plan, r.fund(fr), nil, since, powered(c, sc, since))
	plan = plan.FirstStages(stages)
	var probes []history.Attempt
	probes, obs.History.Quiesced, err = afterTraffic(ctx, cl, sc, plan, attempts, r.heal, since, c.ClaimTTL, c.Profile)
	attempts = append(attempts, probes...)
	if err == nil && ctx.Err() == nil && len(hold.Ops) > 0 {
		attempts = append(attempts, holdProbes(ctx, cl, hold)...)
	}
	if err := errors.Join(err, ctx.Err()); err != nil {
		return obs, plan, err
	}
	obs.History.Seed, obs.History.Attempts = c.Seed, attempts
	obs.History.ClaimTimeout, obs.History.KeyTTL = c.ClaimTTL, c.KeyTTL
	obs.Injected, obs.TopUps = int(injected.Load()), topUps
	last := since()
	charges, stable, err := r.settle(ctx, keys, ackedKeys(attempts), settleFloor(plan), givenUpWork(attempts, c.Timing, last))
	// only now: the connections the client gave up on stayed open, as in a
	// partition, while the work behind them could still charge; what came
	// on them is the service's late answers
	cl.Close()
	cl.FillLate(obs.History.Attempts)
	err = errors.Join(err, fr.close())
	if fp != nil { // after the settle: work still in flight keeps its holds and faults until then
		err = errors.Join(err, r.closeFailpoints(fp), fp.observe(&obs, sc, plan))
	}
	obs.Cuts = cuts.list() // every cut healed by now, its request over
	obs.History.End = since()
	obs.Settled, obs.Unsettled = obs.History.End-last, !stable
	keyed, earlier := splitKeyless(before)
	charges = withoutRows(charges, earlier, r.info.ChargeIDs)
	obs.Ledger = history.Ledger{Charges: charges, RowsAtStart: len(keyed),
		NoAttemptIDs: !r.info.AttemptIDs, NoChargeIDs: !r.info.ChargeIDs, NoKeyless: len(keys.keyless) > 0 && !r.readsKeyless()}
	return obs, plan, err
}

// Settling: the ledger is read again every settlePoll until it has not
// changed for settleQuiet (or half the bound, if less).
const (
	settlePoll  = 100 * time.Millisecond
	settleQuiet = 500 * time.Millisecond
)

// settle reads the charges under keys until they stop changing, for at
// most the target's settle bound: a service may still be committing work
// its client gave up on, or commit after it answered, and a charge that
// lands late must not be missed. Before the bound the ledger counts as
// settled once it has been quiet for the quiet window and holds a charge
// for every key the client was told was charged (acked); at the bound it
// counts as settled if it has been quiet that long (a key still missing is
// then the service's own lost ack). It is never settled within hold, the
// time the work of given-up tries may still take (givenUpWork). stable is
// false when the ledger still moved within the quiet window at the bound.
func (r *Service) settle(ctx context.Context, keys lookup, acked map[string]bool, floor, hold time.Duration) (charges []history.Charge, stable bool, err error) {
	bound := max(r.target.SettleBound(), floor, hold+settleQuiet)
	quiet := min(settleQuiet, bound/2)
	start := time.Now()
	if charges, err = readCharges(ctx, r.ledger, keys); err != nil {
		return nil, false, err
	}
	changed := start
	for {
		calm := time.Since(changed) >= quiet
		switch {
		case calm && holdsEvery(charges, acked) && time.Since(start) >= hold:
			return charges, true, nil
		case time.Since(start) >= bound:
			return charges, calm, nil
		}
		if err := sleep(ctx, settlePoll); err != nil {
			return charges, false, err
		}
		now, err := readCharges(ctx, r.ledger, keys)
		if err != nil {
			return charges, false, err
		}
		if !sameCharges(now, charges) {
			charges, changed = now, time.Now()
		}
	}
}

// givenUpWork is how long after now the work of the tries the client gave
// up on may still charge: their connections stayed open, so a service
// that stops when its client hangs up runs them to their end. Twice the
// measured charge from the last such try's start (0 when none, or when
// the charge was not measured).
func givenUpWork(atts []history.Attempt, timing *scenarios.Timing, now time.Duration) time.Duration {
	if timing == nil {
		return 0
	}
	last, any := time.Duration(0), false
	for _, a := range atts {
		if a.TimedOut() {
			last, any = max(last, a.Call), true
		}
	}
	if !any {
		return 0
	}
	return max(0, last+2*timing.Charge-now)
}

// settleFloor is the least the ledger is given to settle in a run whose
// plan slows requests inside the service (a delay, a latency at a point):
// those requests keep working after their client gave up, for as long as
// the harness holds them, whatever the service's own claim timeout.
func settleFloor(plan workload.Plan) time.Duration {
	var longest time.Duration
	for _, f := range plan.Faults() {
		if in := f.Inject; in.Action.TakesDuration() {
			longest = max(longest, in.Arg)
		}
	}
	if longest == 0 {
		return 0
	}
	return longest + settleQuiet
}

// holdsEvery reports whether there is a charge for every key of keys.
func holdsEvery(charges []history.Charge, keys map[string]bool) bool {
	held := make(map[string]bool, len(charges))
	for _, c := range charges {
		held[c.Key] = true
	}
	for k := range keys {
		if !held[k] {
			return false
		}
	}
	return true
}

// ackedKeys are the keys the client was told were charged.
func ackedKeys(attempts []history.Attempt) map[string]bool {
	out := map[string]bool{}
	for _, a := range attempts {
		if a.Key != "" && a.Outcome == history.Acked {
			out[a.Key] = true
		}
	}
	return out
}

// sameCharges reports whether two reads of the ledger found the same rows.
func sameCharges(a, b []history.Charge) bool {
	return slices.EqualFunc(a, b, func(x, y history.Charge) bool {
		return x.Key == y.Key && x.Account == y.Account && x.Amount == y.Amount && x.ID == y.ID && x.AttemptID == y.AttemptID
	})
}

// sleep waits d, or less if ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// links are the store proxies it holds (nil where it has none).
func (r *Service) links() []*fault.Link { return []*fault.Link{r.pgLink, r.redisLink, r.dynamo} }

func (r *Service) heal() error {
	var errs []error
	for _, l := range r.links() {
		if l != nil {
			errs = append(errs, l.Heal())
		}
	}
	return errors.Join(errs...)
}

// planLookup is what the run reads back of the ledger: the distinct keys
// the plan uses, and the attempt ids of its keyless tries.
func planLookup(plan workload.Plan) lookup {
	var q lookup
	for _, op := range plan.Ops {
		if op.Key != "" {
			q.keys = append(q.keys, op.Key)
			continue
		}
		for try := 1; try <= op.MaxTries; try++ {
			q.keyless = append(q.keyless, client.AttemptID(op.ID, try))
		}
	}
	slices.Sort(q.keys)
	q.keys = slices.Compact(q.keys)
	return q
}

// readsKeyless reports whether the service's ledger gives back the charges
// made without a key: it names the attempt that made each.
func (r *Service) readsKeyless() bool {
	_, ok := r.ledger.(KeylessReader)
	return ok && r.info.AttemptIDs
}
