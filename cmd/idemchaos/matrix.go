package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

func cmdMatrix(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	var c common
	c.register(fs)
	var t targetFlags
	t.register(fs)
	sts := fs.String("strategies", "", "comma-separated strategies (default: all)")
	scs := fs.String("scenarios", "", "comma-separated scenarios (default: all, or none with --scenario-file)")
	scFile := fs.String("scenario-file", "", "add the scenario defined in this YAML file (see examples/)")
	first := fs.Uint64("seed", 1, "first seed")
	n := fs.Int("seeds", 1, "number of seeds per cell: seed, seed+1, ...")
	quiet := fs.Bool("quiet", false, "no progress display")
	workers := fs.Int("parallel", 2, "cells run at once, each on its own database (1 to 8)")
	if err := parse(fs, args); err != nil {
		return err
	}
	profile, err := c.check()
	if err != nil {
		return err
	}
	scens, err := matrixScenarios(*scs, *scFile)
	if err != nil {
		return err
	}
	seeds, err := seedList(*first, *n)
	if err != nil {
		return err
	}
	if t.set() {
		return matrixTarget(ctx, c, t, *sts, crossCells(scens, seeds, profile), *quiet, stdout, stderr)
	}
	strategies, err := splitList("strategies", *sts, strategy.Names())
	if err != nil {
		return err
	}
	if *workers < 1 || *workers > 8 {
		return usageErrorf("--parallel %d: want 1 to 8", *workers)
	}
	var cells []scenarios.Cell
	for _, st := range strategies {
		for _, cell := range crossCells(scens, seeds, profile) {
			cell.Strategy, cell.Replicas = st, c.replicas
			cells = append(cells, cell)
		}
	}
	if err := prepareOut(c.out); err != nil {
		return err
	}
	s, err := open(ctx, c, min(*workers, len(cells)), stderr)
	if err != nil {
		return err
	}
	defer s.close()
	started := time.Now()
	prog := newProgress(stderr, len(cells), *quiet)
	lat := reports.NewLatencies()
	results, err := runCells(ctx, nil, s.runners, cells, c.out, prog, lat)
	prog.done()
	if err != nil {
		return envError(err)
	}
	fmt.Fprintf(stderr, "matrix took %s\n", time.Since(started).Round(time.Millisecond))
	if err := output(c, stdout, results, lat, "matrix", started, func(w io.Writer) error {
		return reports.WriteTable(w, results)
	}); err != nil {
		return err
	}
	announceOut(stderr, c.out)
	return verdictExit(matrixExit(results))
}

// runCells runs cells on the runners, one cell per runner at a time, and
// returns the results in cell order. The first error stops the rest. Once
// stop fires (nil: never), no more cells start; those started finish and the
// rest keep zero results.
func runCells(ctx context.Context, stop <-chan time.Time, runners []*scenarios.Runner, cells []scenarios.Cell, out string,
	prog *progress, lat *reports.Latencies) ([]scenarios.Result, error) {
	var latMu sync.Mutex
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]scenarios.Result, len(cells))
	next := make(chan int)
	errs := make(chan error, len(runners))
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res, rec, err := runCell(ctx, r, cells[i], out)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				latMu.Lock()
				lat.Add(res.Strategy, rec.Obs.History.Attempts)
				latMu.Unlock()
				results[i] = res
				prog.finish(res)
			}
		}()
	}
feed:
	for i, cell := range cells {
		prog.start(cell)
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		case <-stop:
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return results, ctx.Err()
}

// matrixExit: 1 if a cell is not what the catalog declares (other than
// inconclusive), else 4 if any is inconclusive, else 0.
func matrixExit(rs []scenarios.Result) int {
	code := exitPass
	for _, r := range rs {
		switch {
		case r.Verdict == scenarios.Inconclusive:
			code = max(code, exitInconclusive)
		case !r.AsExpected:
			return exitViolated
		}
	}
	return code
}

// progress shows which cell runs; a single rewritten line on a terminal,
// one line per cell otherwise.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	n     int
	tty   bool
	quiet bool
	// onFinish, if set, sees every finished cell, under the lock.
	onFinish func(scenarios.Result)
}

func newProgress(w io.Writer, total int, quiet bool) *progress {
	f, ok := w.(*os.File)
	tty := false
	if ok {
		if fi, err := f.Stat(); err == nil {
			tty = fi.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progress{w: w, total: total, tty: tty, quiet: quiet}
}

func (p *progress) start(c scenarios.Cell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quiet || !p.tty {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K[%d/%d done] running %s / %s seed %d ...", p.n, p.total, c.Strategy, c.Scenario, c.Seed)
}

func (p *progress) finish(r scenarios.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.onFinish != nil {
		p.onFinish(r)
	}
	if p.quiet || p.tty {
		return
	}
	fmt.Fprintf(p.w, "[%d/%d] %s / %s seed %d: %s (%d ms)\n", p.n, p.total, r.Strategy, r.Scenario, r.Seed, r.Verdict, r.DurationMS)
}

func (p *progress) done() {
	if !p.quiet && p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
