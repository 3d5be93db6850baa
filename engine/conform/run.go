package conform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
)

// Env is what every row runs on: the session's stores and Toxiproxy, and
// the builds.
type Env struct {
	Session *engine.Session
	Builds  *Builds
	runID   string
	dynamo  *dynamoDB // started by the first row that keeps its records in DynamoDB
}

// Plan is what a conformance run runs.
type Plan struct {
	Rows      []Row
	Scenarios []string // in catalog order
	Seeds     []uint64
	// Parallel is how many rows run at once, each on its own target
	// (1 to 4); a row's cells run one after another, as against a user's
	// service.
	Parallel int
	Out      string // the run directory ("": none)
	Watch    engine.Watcher
	// Again says which cells run once more when their run proved nothing
	// (nil: none): a check against pinned verdicts asks it for the cells
	// pinned with a verdict, as an inconclusive run is no evidence
	// against one. The second run's result stands, saying so.
	Again func(row, scenario string) bool
}

// Outcome is what a run found: the results in row, scenario, seed order,
// and the cells that could not run against their target, with why.
type Outcome struct {
	Results []scenarios.Result
	Skipped []results.Skip
}

// Run runs the plan: each row's target is started, its runnable cells run
// through engine.Service, and it is stopped before its slot takes the next
// row. An error is the environment's (a target that would not build or
// start, a store that failed): nothing of the rows still running is kept.
func Run(ctx context.Context, e Env, p Plan) (_ Outcome, err error) {
	if p.Parallel < 1 || p.Parallel > 4 {
		return Outcome{}, fmt.Errorf("parallel %d: want 1 to 4", p.Parallel)
	}
	e.runID = newRunID()
	e.dynamo = &dynamoDB{}
	defer func() { err = errors.Join(err, e.dynamo.close()) }()
	byRow := make([][]scenarios.Result, len(p.Rows))
	skipped := make([][]results.Skip, len(p.Rows))
	watch := &serialWatch{w: p.Watch}
	next := make(chan int)
	errs := make(chan error, len(p.Rows))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range min(p.Parallel, len(p.Rows)) {
		wg.Go(func() {
			for i := range next {
				var err error
				byRow[i], skipped[i], err = runRow(ctx, e, p, p.Rows[i], watch)
				if err != nil {
					errs <- err
					cancel()
					return
				}
			}
		})
	}
feed:
	for i := range p.Rows {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := errors.Join(collect(errs)...); err != nil {
		return Outcome{}, err
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	return Outcome{Results: slices.Concat(byRow...), Skipped: slices.Concat(skipped...)}, nil
}

func collect(errs <-chan error) []error {
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}

// runRow starts the row's target, runs its cells and stops it.
func runRow(ctx context.Context, e Env, p Plan, r Row, watch engine.Watcher) ([]scenarios.Result, []results.Skip, error) {
	d, err := deploy(ctx, e, r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Name(), err)
	}
	res, skip, err := d.run(ctx, e, p, watch)
	err = errors.Join(err, d.close(context.WithoutCancel(ctx), e))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Name(), err)
	}
	return res, skip, nil
}

// run runs the row's cells against the started target, one at a time.
func (d *deployment) run(ctx context.Context, e Env, p Plan, watch engine.Watcher) ([]scenarios.Result, []results.Skip, error) {
	cells, skipped := d.cells(p)
	if len(cells) == 0 {
		return nil, skipped, nil
	}
	ledger, err := engine.OpenLedger(ctx, d.dsn, d.ext.LedgerQuery)
	if err != nil {
		return nil, nil, err
	}
	defer ledger.Close()
	svc, err := engine.NewService(d.ext, e.Session.Toxi, e.Session.Toxi, ledger, ledger.Info())
	if err != nil {
		return nil, nil, err
	}
	res, err := engine.RunAll(ctx, []engine.Executor{svc}, cells, engine.Batch{Out: p.Out, Watch: watch})
	if err == nil && p.Again != nil {
		err = again(ctx, svc, p, cells, res, watch)
	}
	return res, skipped, errors.Join(err, svc.Close())
}

// again runs once more each cell whose run proved nothing and that p.Again
// asks for, and puts the new result in its place, noting why it ran twice.
func again(ctx context.Context, svc engine.Executor, p Plan, cells []scenarios.Cell, res []scenarios.Result, watch engine.Watcher) error {
	for i, r := range res {
		if r.Verdict != scenarios.Inconclusive || !p.Again(r.Strategy, r.Scenario) {
			continue
		}
		if p.Out != "" {
			if err := os.RemoveAll(rundir.CellDir(p.Out, cells[i])); err != nil {
				return err
			}
		}
		second, err := engine.RunAll(ctx, []engine.Executor{svc}, cells[i:i+1], engine.Batch{Out: p.Out, Watch: watch})
		if err != nil {
			return err
		}
		res[i] = second[0]
		res[i].Adapted = append(res[i].Adapted, fmt.Sprintf("seed %d ran a second time: its first run proved nothing (%s)",
			r.Seed, strings.Join(r.Assumptions, "; ")))
	}
	return nil
}

// cells are the row's cells that can run against its target, and a skip
// for each scenario that cannot, with why.
func (d *deployment) cells(p Plan) ([]scenarios.Cell, []results.Skip) {
	var cells []scenarios.Cell
	var skipped []results.Skip
	for _, name := range p.Scenarios {
		for _, seed := range p.Seeds {
			c := scenarios.Cell{Strategy: d.ext.Name, Scenario: name, Seed: seed, Profile: d.profile, Target: &d.ext}
			_, _, err := scenarios.Prepare(c)
			var skip *scenarios.SkipError
			if errors.As(err, &skip) {
				skipped = append(skipped, results.Skip{Strategy: d.ext.Name, Scenario: name, Reason: skip.Reason})
				break
			}
			cells = append(cells, c)
		}
	}
	return cells, skipped
}

// serialWatch passes cells on to a watcher, one call at a time: rows run
// side by side.
type serialWatch struct {
	mu sync.Mutex
	w  engine.Watcher
}

func (s *serialWatch) Start(c scenarios.Cell) {
	if s.w == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Start(c)
}

func (s *serialWatch) Finish(res scenarios.Result, rec scenarios.Record) {
	if s.w == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Finish(res, rec)
}

// newRunID names this run's proxies apart from any other run's.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RowSpecs are the plan's rows as the conformance table names them.
func (p Plan) RowSpecs() []conformance.RowSpec {
	out := make([]conformance.RowSpec, len(p.Rows))
	for i, r := range p.Rows {
		out[i] = conformance.RowSpec{Target: r.Target, Profile: r.Profile.Name}
	}
	return out
}
