// Package shrink reduces a failing cell to a minimal scenario file that
// still fails the same way: it reads the cell's plan as a scenario file
// (Start), then cuts keys, faults, duplicates, tries and timings one step
// at a time (a greedy delta-debugging loop), keeping a cut only when the
// smaller scenario, re-run on the real target K times, fails with the
// same anomaly on every one of the K. The re-runs are the oracle; the
// search is bounded in time.
package shrink

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Config is one shrink.
type Config struct {
	Exec engine.Executor
	// Cell is the failing cell: a built-in strategy, or a user's service
	// (Target set), with its scenario, seed and profile.
	Cell scenarios.Cell
	// Plan is the plan the cell ran (a run directory's); nil: the one its
	// seed gives.
	Plan *workload.Plan
	// Anomaly is the anomaly every shrunk run must show; "": the one the
	// cell shows, found by running it once.
	Anomaly check.Anomaly
	K       int           // re-runs per candidate, every one of which must fail
	Timeout time.Duration // the whole search, re-runs included
	// Progress, if set, hears every candidate's verdict.
	Progress func(line string)
}

// Outcome is a finished shrink.
type Outcome struct {
	// From is the failing cell as it was prepared.
	From        scenarios.Cell
	Start, Spec spec.Spec // the cell as a scenario file, and its shrunk form
	// Cell is the shrunk cell: the config's, running Spec.
	Cell    scenarios.Cell
	Result  scenarios.Result // the last of the K failing runs of Spec
	Record  scenarios.Record
	Anomaly check.Anomaly
	K       int
	Kept    []string // the cuts kept, in order
	Tried   int      // candidates run
	Runs    int      // runs in all
	Took    time.Duration
	Stopped string // why the search ended
}

// ErrNoFailure says the cell did not fail: nothing to shrink.
var ErrNoFailure = errors.New("the cell did not fail: nothing to shrink")

// Run shrinks the config's cell.
func Run(ctx context.Context, cfg Config) (Outcome, error) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	o := Outcome{K: max(cfg.K, 1), Anomaly: cfg.Anomaly}
	cell, plan, err := scenarios.Prepare(cfg.Cell)
	if err != nil {
		return o, err
	}
	if cfg.Plan != nil {
		plan = *cfg.Plan
	}
	o.From = cell
	if o.Start, err = Start(cell, plan); err != nil {
		return o, err
	}
	if o.Anomaly == "" {
		if o.Anomaly, err = o.firstAnomaly(ctx, cfg); err != nil {
			return o, err
		}
	}
	s := &search{cfg: cfg, out: &o}
	s.once = s.runOnce
	if err := s.startFails(ctx); err != nil {
		return o, err
	}
	o.Spec = o.Start
	o.Stopped = s.loop(ctx)
	o.Spec = tidy(o.Spec, cell, o)
	o.Cell, o.Took = s.cellOf(o.Spec), time.Since(started)
	return o, nil
}

// tidy says where the shrunk scenario came from and writes a
// fault's share as 1 where it already hits every request with its try (a
// share of a handful of requests rounds so): the plan stays the same.
func tidy(sp spec.Spec, from scenarios.Cell, o Outcome) spec.Spec {
	sp = clone(sp)
	sp.Doc = fmt.Sprintf("%s seed %d against %s, shrunk by idemchaos shrink (%d cuts kept, each failing %d of %d re-runs); it was: %s",
		from.Scenario, from.Seed, from.Strategy, len(o.Kept), o.K, o.K, o.Start.Doc)
	sp.Reveals = fmt.Sprintf("%s, as %s showed it", o.Anomaly, from.Scenario)
	plan := sp.Plan(workload.Seeded(from.Seed, "plan/"+sp.Name), sp.Target.Replicas)
	for i, f := range sp.Faults {
		n := 0
		for _, op := range plan.Ops {
			if op.MaxTries >= f.Try {
				n++
			}
		}
		if f.Share < 1 && math.Round(f.Share*float64(n)) >= float64(n) || n == 1 {
			whole := clone(sp)
			whole.Faults[i].Share = 1
			if whole.Validate(scenarios.Names()) == nil {
				sp = whole
			}
		}
	}
	return sp
}

// firstAnomaly runs the cell once and picks the anomaly to keep: double
// charge if it shows one, else the first it shows in the checker's order.
func (o *Outcome) firstAnomaly(ctx context.Context, cfg Config) (check.Anomaly, error) {
	res, _, err := engine.Run(ctx, cfg.Exec, cfg.Cell, "")
	o.Runs++
	if err != nil {
		return "", err
	}
	if res.Verdict != scenarios.Fail {
		return "", ErrNoFailure
	}
	names := append([]check.Anomaly{check.DoubleCharge}, check.Anomalies()...)
	i := slices.IndexFunc(names, func(a check.Anomaly) bool { return res.Anomalies[a] > 0 })
	if i < 0 {
		return "", ErrNoFailure
	}
	return names[i], nil
}

// search is the greedy loop's state.
type search struct {
	cfg Config
	out *Outcome
	// once runs a scenario once (runOnce; a test's script).
	once func(ctx context.Context, sp spec.Spec) (scenarios.Result, scenarios.Record, error)
}

// startFails checks that the cell, as a file, fails K of K runs. A start
// that failed and then once did not gets a second round of K: a busy
// machine can stretch a race past its edge on one run (retry-storm against
// paymentd --failpoints, at a load of 20). Failing on no run of the first
// round, or on some runs of each, it cannot be shrunk: the error says which.
func (s *search) startFails(ctx context.Context) error {
	o := s.out
	n, err := s.failing(ctx, o.Start)
	if err == nil && n > 0 && n < o.K {
		if s.cfg.Progress != nil {
			s.cfg.Progress(fmt.Sprintf("the cell as a file failed %d of its first %d runs: %d runs more", n, n+1, o.K))
		}
		n, err = s.failing(ctx, o.Start)
	}
	switch {
	case err != nil:
		return err
	case n == 0:
		return fmt.Errorf("the cell, written as a scenario file, did not fail with %s on %d of %d runs: "+
			"what it needs (a gate, chained requests) has no place in a file", o.Anomaly, o.K, o.K)
	case n < o.K:
		return fmt.Errorf("the cell, written as a scenario file, failed with %s on some runs and not on others, twice: "+
			"its race does not hold on every run here (a busy machine?); shrink needs K of K", o.Anomaly)
	}
	return nil
}

// loop keeps the first candidate that still fails, then starts over from
// the smaller scenario, until no candidate fails or time is up.
func (s *search) loop(ctx context.Context) string {
	for {
		progressed := false
		for _, c := range candidates(s.out.Spec) {
			if c.spec.Validate(scenarios.Names()) != nil {
				continue
			}
			if ctx.Err() != nil {
				return "the time bound was reached"
			}
			s.out.Tried++
			ok, err := s.fails(ctx, c.spec)
			switch {
			case err != nil && ctx.Err() != nil:
				return "the time bound was reached"
			case err != nil:
				return "a run could not be made: " + err.Error()
			}
			s.tell(c.what, ok)
			if ok {
				s.out.Spec, s.out.Kept, progressed = c.spec, append(s.out.Kept, c.what), true
				break
			}
		}
		if !progressed {
			return "no smaller scenario fails every time"
		}
	}
}

func (s *search) tell(what string, kept bool) {
	if s.cfg.Progress == nil {
		return
	}
	verdict := fmt.Sprintf("passed within %d runs: not kept", s.out.K)
	if kept {
		verdict = fmt.Sprintf("failed %d of %d: kept", s.out.K, s.out.K)
	}
	s.cfg.Progress(what + ": " + verdict)
}

// cellOf is the config's cell running sp.
func (s *search) cellOf(sp spec.Spec) scenarios.Cell {
	c := s.cfg.Cell
	c.Scenario, c.Custom, c.ClaimTTL, c.KeyTTL, c.Adapted = sp.Name, &sp, 0, 0, nil
	return c
}

// fails runs sp K times, stopping at the first run that does not fail
// with the anomaly; the last failing run is kept.
func (s *search) fails(ctx context.Context, sp spec.Spec) (bool, error) {
	n, err := s.failing(ctx, sp)
	return n == s.out.K, err
}

// failing runs sp up to K times and returns how many runs failed with the
// anomaly before the first that did not (K: all of them, the last kept as
// the outcome's).
func (s *search) failing(ctx context.Context, sp spec.Spec) (int, error) {
	var res scenarios.Result
	var rec scenarios.Record
	for i := range s.out.K {
		var err error
		res, rec, err = s.once(ctx, sp)
		s.out.Runs++
		if err != nil || res.Verdict != scenarios.Fail || res.Anomalies[s.out.Anomaly] == 0 {
			return i, err
		}
	}
	s.out.Result, s.out.Record = res, rec
	return s.out.K, nil
}

// runOnce runs sp once on the real stores.
func (s *search) runOnce(ctx context.Context, sp spec.Spec) (scenarios.Result, scenarios.Record, error) {
	return engine.Run(ctx, s.cfg.Exec, s.cellOf(sp), "")
}
