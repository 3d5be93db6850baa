package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
)

// ServiceBatch is how RunService runs its cells.
type ServiceBatch struct {
	// Out is the run directory, prepared for the cells given ("": none).
	Out string
	// Log is told what measuring the service found (nil: nothing).
	Log io.Writer
	// Watch sees each cell start and finish (nil: nobody watches).
	Watch Watcher
	// Moved is told, before the rest run, which scenarios measuring the
	// service moved out and how many cells are left (nil: not told).
	Moved func(late []results.Skip, left int)
}

// ServiceOutcome is what RunService ran, and what it moved out.
type ServiceOutcome struct {
	Results []scenarios.Result // in cell order, coverage counted
	Skipped []results.Skip     // the scenarios measuring the service moved out
}

// RunService is the one pipeline of a user's service, for the command line
// and scenariotest alike: it times the service's charge (every run against
// it is judged with it), moves out the cells that cannot run at that speed,
// records in the run directory how many cells are left, and runs them one
// after another (store faults hit every request of the service). cells
// are those SplitSkipped let through. A service it cannot measure fails
// the run only if a cell adapts to the timing; the others show why in
// their own verdicts. An error is the environment's, but a
// *BadInputError: nothing left that can run, or a run directory that
// cannot be written.
func RunService(ctx context.Context, svc *Service, cells []scenarios.Cell, b ServiceBatch) (ServiceOutcome, error) {
	cells, late, err := measure(ctx, svc, cells, b.Log)
	if err != nil {
		return ServiceOutcome{}, err
	}
	if len(late) > 0 && b.Moved != nil {
		b.Moved(late, len(cells))
	}
	if len(cells) == 0 {
		return ServiceOutcome{Skipped: late}, &BadInputError{fmt.Errorf("scenario %s cannot run against %s: %s",
			late[0].Scenario, svc.target.Name, late[0].Reason)}
	}
	if b.Out != "" && len(late) > 0 {
		if err := rundir.WritePlanned(b.Out, len(cells)); err != nil {
			return ServiceOutcome{Skipped: late}, &BadInputError{err}
		}
	}
	rs, err := runEach(ctx, svc, cells, b)
	if err != nil {
		return ServiceOutcome{Skipped: late}, err
	}
	return ServiceOutcome{Results: scenarios.Cover(rs), Skipped: late}, nil
}

// runEach runs the cells one after another. A cell the harness could not
// run is that cell's result (scenarios.Failed), and the others still run:
// one cell's environment error says nothing of the next. Only an
// interrupted run stops early (ctx's error).
func runEach(ctx context.Context, svc *Service, cells []scenarios.Cell, b ServiceBatch) ([]scenarios.Result, error) {
	out := make([]scenarios.Result, 0, len(cells))
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b.Watch != nil {
			b.Watch.Start(c)
		}
		res, rec, err := Run(ctx, svc, c, b.Out)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, err
		case err != nil:
			res, rec = scenarios.Failed(c, err), scenarios.Record{Cell: c}
		}
		if b.Watch != nil {
			b.Watch.Finish(res, rec)
		}
		out = append(out, res)
	}
	return out, nil
}

// SplitSkipped separates the cells that can run against their target from
// those that cannot (one Skip per strategy and scenario, with why: a
// user's service, or a built-in strategy on InnoDB); a cell that adapts
// to the service's charge time runs if the rest of it can, until
// RunService measures otherwise.
func SplitSkipped(cells []scenarios.Cell) ([]scenarios.Cell, []results.Skip) {
	var run []scenarios.Cell
	var skipped []results.Skip
	seen := map[string]bool{}
	for _, c := range cells {
		if c.NeedsTiming() && c.Timing == nil {
			c.Timing = &scenarios.Timing{Charge: time.Hour} // slow enough: the rest of the cell decides
		}
		_, _, err := scenarios.Prepare(c)
		var skip *scenarios.SkipError
		if errors.As(err, &skip) {
			if k := c.Strategy + "\x00" + skip.Scenario; !seen[k] {
				seen[k] = true
				skipped = append(skipped, results.Skip{Strategy: c.Strategy, Scenario: skip.Scenario, Reason: skip.Reason})
			}
			continue
		}
		run = append(run, c)
	}
	return run, skipped
}

// measure times the service's charge, gives the cells the timing, and
// moves out those it cannot run (a charge too fast to time a client out
// inside it).
func measure(ctx context.Context, svc *Service, cells []scenarios.Cell, log io.Writer) ([]scenarios.Cell, []results.Skip, error) {
	if log == nil {
		log = io.Discard
	}
	timing, err := svc.Timing(ctx)
	switch {
	case err != nil && (ctx.Err() != nil || slices.ContainsFunc(cells, scenarios.Cell.NeedsTiming)):
		return nil, nil, err
	case err != nil:
		fmt.Fprintf(log, "not measured: %v\n", err)
		return cells, nil, nil
	}
	fmt.Fprintf(log, "measured: a charge takes %s (median of %d, %s)\n", scenarios.ShortDuration(timing.Charge), len(timing.Samples), samplesText(timing.Samples))
	for i := range cells {
		cells[i].Timing = timing
	}
	run, skipped := SplitSkipped(cells)
	return run, skipped, nil
}

func samplesText(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Round(100 * time.Microsecond).String()
	}
	return strings.Join(parts, " ")
}
