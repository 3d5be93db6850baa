package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// ExploreSpec is an exploration: which requests, how many orders, how
// they are judged.
type ExploreSpec struct {
	// Cases are explored in turn; a case that strikes at Every point is
	// one case per point the target's request passes (Kind.Expand).
	Cases       []explore.Case
	Requests    int // 2 or 3
	Preemptions int // negative: unbounded
	// Bound is how long a released request may take to reach its next
	// point before it is taken to wait on another; 0: measured (bound).
	Bound time.Duration
	// Order, when set, is the one order run (Repeat times): a replay.
	Order  explore.Order
	Repeat int
	// Recheck is how many holding orders the determinism check runs again
	// (every failing one is run again too).
	Recheck int
	Workers int
	Profile api.Profile
	Seed    uint64
	// Progress, when set, is told of every order run of a case.
	Progress func(c explore.Case, runs int)
	// Shard, when set, runs the shard's share of the cases: the case of
	// rank r (from 0) in the order they are planned, a case per point of
	// those that strike at every point, runs in shard r mod N + 1.
	Shard scenarios.Shard
	// Planned, when set, is told the cases planned (every shard's), once
	// the points a request passes alone are known; a built-in's cases of
	// a cut, on a deployment of their own, are told after the others.
	Planned func(cases []explore.Case)
	// first is the rank of the first case planned here (a built-in's
	// cases of a cut follow its others).
	first int
}

// exploreTarget is where an exploration's executions run: a deployment of
// a built-in strategy, or a user's service that speaks the failpoint
// protocol.
type exploreTarget interface {
	// name is the target's name in the result.
	name() string
	// points are the failpoint sets the target's requests evaluate.
	points() []*failpoint.Set
	// route is the base URL requests to replica are sent to (replica 1:
	// the process that replaced a killed one); client shapes them (nil
	// Header: no extra headers).
	route(replica int) string
	client() client.Config
	// account gives execution n an account of its own (opened on the
	// ledger, or one of the service's, free of every other execution
	// running) and what frees it; workers bounds the executions run side
	// by side (0: no bound).
	account(ctx context.Context, n int) (id string, free func(), err error)
	workers() int
	currency() string
	// claimTimeout is the longest a claim may legitimately outlive its
	// request: a probe after it must find the key free.
	claimTimeout() time.Duration
	// truth reads the ground truth of the keys.
	truth(ctx context.Context, keys []string) (history.Ledger, error)
	// twoStores says the checker judges store_desync.
	twoStores() bool
	// cut cuts a store link (api.PGCut, api.RedisCut) and returns what
	// heals it; cuts are the links the target's requests use.
	cut(a api.Action) (heal func(), err error)
	cuts() []api.Action
	// kill kills the process of replica 0 (every store connection it has
	// dies; what it had not committed is rolled back before kill returns)
	// and returns what revives it once its last request is over; kills
	// says whether the target can (its processes are the harness's).
	kill(ctx context.Context) (revive func(), err error)
	kills() bool
}

// Bound factors: a request released is waiting on another when it has not
// moved within boundFactor times the slowest step measured alone, and
// never less than minBound.
const (
	boundFactor = 10
	minBound    = 250 * time.Millisecond
	soloRuns    = 3
)

// jobTries is how many times an order is tried before it is reported not
// run: a request that showed up after the scheduler chose (slower than
// the bound on a loaded machine) makes an execution leave its order.
const jobTries = 3

// exploreOpening is the opening balance of an account opened for one
// execution.
const exploreOpening = 1_000_000

// explorer runs the executions of one exploration.
type explorer struct {
	t    exploreTarget
	spec ExploreSpec
	h    *holds
	cl   *client.Client
	rng  *rand.Rand
	c    explore.Case // the case being explored
	mu   sync.Mutex
	n    int // executions begun
}

// exploreOn runs spec against t: the bound, and then each case: every
// order (or the one of spec.Order), the determinism check, the ground
// truth, each order judged.
func exploreOn(ctx context.Context, t exploreTarget, spec ExploreSpec) ([]explore.Result, error) {
	t0 := time.Now()
	since := func() time.Duration { return time.Since(t0) }
	h := &holds{since: since}
	for _, set := range t.points() {
		h.arm(set)
	}
	cfg := t.client()
	cfg.Routes, cfg.Seed, cfg.Since, cfg.Policy = func(replica int, _ string) (string, error) { return t.route(replica), nil }, spec.Seed, since, client.Policy{PerTry: maxHeld}
	// keys fresh on every exploration (a service's ledger, and a built-in's
	// across its deployments, outlive one), the rest from the seed
	x := &explorer{t: t, spec: spec, h: h, rng: workload.Seeded(spec.Seed^newNonce(), "explore/keys"), cl: client.New(cfg)}
	defer x.cl.Close()
	bound, how, points, err := x.bound(ctx)
	if err != nil {
		return nil, err
	}
	planned := plan(spec.Cases, points, t.cuts(), t.kills())
	if spec.Planned != nil {
		spec.Planned(planned)
	}
	var out []explore.Result
	for i, c := range planned {
		if !spec.Shard.Owns(spec.first + i) {
			continue
		}
		res, err := x.explore(ctx, c, bound, how)
		out = append(out, res)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// plan is the cases to explore on a target whose request alone passes
// points, whose links cuts can cut and whose process the harness can
// kill (kills): each case, one per point for a case at every point, none
// of a link the target does not use nor a kill it cannot make.
func plan(cases []explore.Case, points []string, cuts []api.Action, kills bool) []explore.Case {
	var out []explore.Case
	for _, c := range cases {
		switch {
		case c.Cut != "" && !slices.Contains(cuts, c.Cut), c.Kill && !kills:
			// a link the target does not use, a process not the harness's
		case c.At == explore.Every:
			out = append(out, c.Kind.Expand(points)...)
		default:
			out = append(out, c)
		}
	}
	return out
}

// explore runs one case.
func (x *explorer) explore(ctx context.Context, c explore.Case, bound time.Duration, how string) (explore.Result, error) {
	start := time.Now()
	x.c = c
	res := explore.Result{Target: x.t.name(), Case: c.Name(), Requests: x.spec.Requests, Preemptions: x.spec.Preemptions,
		Bound: bound, BoundHow: how, Profile: x.spec.Profile, TwoStores: x.t.twoStores()}
	var runs []explore.Execution
	var err error
	if x.spec.Order != nil {
		runs, err = x.replay(ctx, x.spec.Order, max(x.spec.Repeat, 1), bound)
	} else {
		runs, res.Errors, err = x.all(ctx, bound)
	}
	if err != nil {
		return res, err
	}
	judged, err := x.judge(ctx, runs)
	if err != nil {
		return res, err
	}
	if x.spec.Order == nil {
		res.Rechecked, err = x.recheck(ctx, judged, bound)
	} else {
		judged, res.Rechecked = x.foldRepeats(judged), len(judged)
	}
	res.Runs, res.Took = judged, time.Since(start)
	return res, err
}

// workers is how many executions of the current case run side by side:
// one at a time for a case that cuts a store link every execution shares
// (or kills the process that holds them).
func (x *explorer) workers() int {
	if x.c.Shares() {
		return 1
	}
	n := max(x.spec.Workers, 1)
	if w := x.t.workers(); w > 0 {
		n = min(n, w)
	}
	return n
}

// bound is the spec's bound, or the one measured (boundFactor times the
// slowest step of a request run alone, each step released at once, in the
// median of soloRuns runs, at least minBound), how it was set, and the
// points a request passes alone.
func (x *explorer) bound(ctx context.Context) (time.Duration, string, []string, error) {
	x.c = explore.Case{Kind: explore.Kinds()[0]}
	var slowests []time.Duration
	var points []string
	for i := range soloRuns {
		if i > 0 && x.spec.Bound > 0 {
			break
		}
		ex, _, steps, err := x.run(ctx, 1, nil, time.Minute)
		if err != nil {
			return 0, "", nil, fmt.Errorf("a request alone: %w", err)
		}
		if a := ex.Attempts[0]; a.Status == 0 {
			return 0, "", nil, fmt.Errorf("a request alone got no answer: %s", a.Err)
		}
		slowests = append(slowests, slices.Max(steps))
		points = points[:0]
		for _, s := range ex.Steps[1:] {
			points = append(points, s.From)
		}
	}
	if x.spec.Bound > 0 {
		return x.spec.Bound, "set", points, nil
	}
	slices.Sort(slowests)
	slowest := slowests[len(slowests)/2] // the median run's: one stall of a loaded machine does not set it
	b := max(minBound, boundFactor*slowest)
	return b, fmt.Sprintf("measured: %d x the slowest step of a request alone (%s, the median of %d runs), at least %s",
		boundFactor, slowest.Round(time.Microsecond), len(slowests), minBound), points, nil
}

// all runs every order of the tree, spec.Workers side by side, each on a
// key of its own; an order that could not be run is an error line.
func (x *explorer) all(ctx context.Context, bound time.Duration) ([]explore.Execution, []string, error) {
	tree, err := explore.NewTree(x.spec.Requests, x.spec.Preemptions)
	if err != nil {
		return nil, nil, err
	}
	type done struct {
		job     explore.Job
		ex      explore.Execution
		choices []explore.Choice
		err     error
	}
	results := make(chan done)
	running, workers := 0, x.workers()
	var runs []explore.Execution
	var failed []string
	tries := map[string]int{}
	for {
		for running < workers {
			job, ok := tree.Next()
			if !ok {
				break
			}
			running++
			go func() {
				ex, choices, _, err := x.run(ctx, x.spec.Requests, job.Prefix, bound)
				results <- done{job, ex, choices, err}
			}()
		}
		if running == 0 {
			return runs, failed, ctx.Err()
		}
		d := <-results
		running--
		if d.err == nil {
			d.err = tree.Record(d.job, d.choices)
		}
		switch {
		case ctx.Err() != nil:
		case d.err != nil && tries[d.job.Prefix.String()] < jobTries-1:
			tries[d.job.Prefix.String()]++
			tree.Again(d.job)
		case d.err != nil:
			failed = append(failed, fmt.Sprintf("%v (%d tries)", d.err, jobTries))
		default:
			runs = append(runs, d.ex)
			if x.spec.Progress != nil {
				x.spec.Progress(x.c, len(runs))
			}
		}
	}
}

// replay runs order n times.
func (x *explorer) replay(ctx context.Context, order explore.Order, n int, bound time.Duration) ([]explore.Execution, error) {
	var runs []explore.Execution
	for range n {
		ex, err := x.one(ctx, x.spec.Requests, order, bound)
		if err != nil {
			return nil, err
		}
		if len(ex.Order) != len(order) || !slices.Equal(ex.Order, order) {
			return nil, fmt.Errorf("order %s is not an order of this target: it ran %s", order, ex.Order)
		}
		runs = append(runs, ex)
		if x.spec.Progress != nil {
			x.spec.Progress(x.c, len(runs))
		}
	}
	return runs, nil
}

// one runs one execution of requests requests following prefix, tried
// again when it leaves the order (jobTries in all).
func (x *explorer) one(ctx context.Context, requests int, prefix explore.Order, bound time.Duration) (explore.Execution, error) {
	var ex explore.Execution
	var err error
	for range jobTries {
		if ex, _, _, err = x.run(ctx, requests, prefix, bound); err == nil || ctx.Err() != nil {
			break
		}
	}
	return ex, err
}

// run runs one execution of requests requests following prefix, on a key
// and an account of its own, and returns it, its choices and how long
// each of its steps took to reach the next hold or answer.
func (x *explorer) run(ctx context.Context, requests int, prefix explore.Order, bound time.Duration) (explore.Execution, []explore.Choice, []time.Duration, error) {
	x.mu.Lock()
	n := x.n
	x.n++
	key := workload.NewKey(x.rng)
	x.mu.Unlock()
	account, free, err := x.t.account(ctx, n)
	if err != nil {
		return explore.Execution{}, nil, nil, err
	}
	defer free()
	ex := newExecution(n, requests, x.c, key, account, x.t.currency(), 1000)
	ex.cut = func() (func(), error) { return x.t.cut(x.c.Cut) }
	ex.kill = func() (func(), error) { return x.t.kill(ctx) }
	for r := range requests {
		x.h.add(ex.attemptID(r), ex, r)
		defer x.h.drop(ex.attemptID(r))
	}
	run, choices, err := ex.run(ctx, x.cl, prefix, bound)
	if err == nil {
		err = x.probe(ctx, ex, &run)
	}
	return run, choices, ex.timings, err
}

// probe sends, when a request met the in-flight status with nothing else
// in flight, one more request of A's key and payload, unheld, after the
// claim timeout (and a quarter): the claim must have lapsed by then.
func (x *explorer) probe(ctx context.Context, ex *execution, run *explore.Execution) error {
	if _, alone := explore.Alone(*run, x.spec.Profile); !alone {
		return nil
	}
	d := x.t.claimTimeout()
	t := time.NewTimer(d + d/4)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	op := ex.ops[0]
	op.ID = ex.probeID()
	if x.c.Kill { // A's process is dead: the probe goes where its retries went
		op.Tries = []workload.Try{{Replica: 1}}
	}
	atts := x.cl.Run(ctx, workload.Plan{Ops: []workload.Op{op}})
	if len(atts) == 0 {
		return fmt.Errorf("the probe of key %s was not sent", op.Key)
	}
	run.Probe = &atts[0]
	return nil
}

// judge reads the ground truth of every execution's key and judges each.
func (x *explorer) judge(ctx context.Context, runs []explore.Execution) ([]explore.Run, error) {
	if err := x.truth(ctx, runs); err != nil {
		return nil, err
	}
	out := make([]explore.Run, 0, len(runs))
	for _, ex := range runs {
		out = append(out, explore.Judged(ex, x.spec.Profile, x.t.twoStores()))
	}
	return out, nil
}

// truth reads the ground truth of every execution's key into its Ledger.
func (x *explorer) truth(ctx context.Context, runs []explore.Execution) error {
	keys := make([]string, 0, len(runs))
	for _, ex := range runs {
		keys = append(keys, keyOf(ex))
	}
	truth, err := x.t.truth(ctx, keys)
	if err != nil {
		return fmt.Errorf("the ground truth: %w", err)
	}
	byKey := splitTruth(truth)
	for i := range runs {
		runs[i].Ledger = byKey[keyOf(runs[i])]
	}
	return nil
}

// keyOf is an execution's key (every request carries it).
func keyOf(ex explore.Execution) string {
	for _, a := range ex.Attempts {
		if a.Key != "" {
			return a.Key
		}
	}
	return ""
}

// splitTruth is the ground truth of each key: its charges, the accounts
// they name, its Redis records.
func splitTruth(l history.Ledger) map[string]history.Ledger {
	accounts := map[string]history.Account{}
	for _, a := range l.Accounts {
		accounts[a.ID] = a
	}
	out := map[string]history.Ledger{}
	for _, c := range l.Charges {
		k := out[c.Key]
		k.Charges = append(k.Charges, c)
		if a, ok := accounts[c.Account]; ok && !slices.ContainsFunc(k.Accounts, func(x history.Account) bool { return x.ID == a.ID }) {
			k.Accounts = append(k.Accounts, a)
		}
		out[c.Key] = k
	}
	for _, r := range l.Redis {
		k := out[r.Key]
		k.Redis = append(k.Redis, r)
		out[r.Key] = k
	}
	return out
}

// recheck is the determinism check: every failing order and up to
// spec.Recheck holding ones (drawn from the seed) run again, each re-run
// kept with its order's run, which is judged again with them: an order
// whose class differs is marked with the classes it varied to
// (explore.Rejudged).
func (x *explorer) recheck(ctx context.Context, runs []explore.Run, bound time.Duration) (int, error) {
	var pick []int
	var holding []int
	for i, r := range runs {
		if r.Outcome.Holds() {
			holding = append(holding, i)
		} else {
			pick = append(pick, i)
		}
	}
	x.rng.Shuffle(len(holding), func(i, j int) { holding[i], holding[j] = holding[j], holding[i] })
	pick = append(pick, holding[:min(len(holding), x.spec.Recheck)]...)
	var again []explore.Execution
	var of []int // the run each of again re-runs
	for _, i := range pick {
		ex, err := x.one(ctx, x.spec.Requests, runs[i].Order, bound)
		if err != nil {
			runs[i].NotRerun = append(runs[i].NotRerun, err.Error())
			continue
		}
		again, of = append(again, ex), append(of, i)
	}
	if err := x.truth(ctx, again); err != nil {
		return 0, err
	}
	for j, ex := range again {
		runs[of[j]].Reruns = append(runs[of[j]].Reruns, ex)
	}
	for _, i := range pick {
		runs[i] = explore.Rejudged(runs[i], x.spec.Profile, x.t.twoStores())
	}
	return len(pick), ctx.Err()
}

// foldRepeats folds the repeats of one order into its first run, as its
// re-runs (explore.Rejudged: the classes the others gave are Varied).
func (x *explorer) foldRepeats(runs []explore.Run) []explore.Run {
	if len(runs) == 0 {
		return runs
	}
	first := runs[0]
	for _, r := range runs[1:] {
		first.Reruns = append(first.Reruns, r.Execution)
	}
	return []explore.Run{explore.Rejudged(first, x.spec.Profile, x.t.twoStores())}
}
