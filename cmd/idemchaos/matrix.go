package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
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
	c.term.register(fs)
	workers := fs.Int("parallel", 0, "cells run at once, each on its own database (1 to 8; 0: three per CPU, 2 to 8)")
	c.registerShard(fs, "its share of the cells, round robin in a fixed order")
	c.registerDryRun(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	profile, err := c.check()
	if err != nil {
		return err
	}
	view, err := c.view(stdout)
	if err != nil {
		return err
	}
	names := scenarios.BuiltinNames() // a user's service: every scenario it can run
	if t.set() {
		names = scenarios.Names()
	}
	scens, err := matrixScenarios(*scs, *scFile, names)
	if err != nil {
		return err
	}
	seeds, err := seedList(*first, *n)
	if err != nil {
		return err
	}
	if t.set() {
		return matrixTarget(ctx, c, t, *sts, crossCells(scens, seeds, profile), view, stdout, stderr)
	}
	if err := t.stray(); err != nil {
		return err
	}
	strategies, err := splitList("strategies", *sts, design.Names())
	if err != nil {
		return err
	}
	if *workers < 0 || *workers > 8 {
		return usageErrorf("--parallel %d: want 1 to 8, or 0 for three per CPU", *workers)
	}
	if *workers == 0 {
		*workers = defaultParallel(runtime.NumCPU())
	}
	var cells []scenarios.Cell
	for _, st := range strategies {
		for _, cell := range crossCells(scens, seeds, profile) {
			cell.Strategy, cell.Replicas = st, c.replicas
			cells = append(cells, cell)
		}
	}
	asked := len(cells)
	cells, skipped := engine.SplitSkipped(cells)
	all := cells
	shard, cells := shardCells(c.shard, cells, stderr)
	if c.dryRun {
		tellSkippedCells(stderr, view, skipped)
		return dryRunSkipping(stdout, "matrix", all, cells, shard, asked-len(all), "cell")
	}
	if err := prepareOut(c.out, len(cells)); err != nil {
		return err
	}
	if len(cells) == 0 {
		return emptyShard(c, stdout, stderr, shard, "matrix", nil)
	}
	s, err := open(ctx, c, min(*workers, len(cells)), stderr, strategiesOf(cells)...)
	if err != nil {
		return err
	}
	defer s.Close()
	started := time.Now()
	prog := newProgress(stderr, len(cells), c.quiet)
	rs, err := engine.RunAll(ctx, s.Executors(), cells, engine.Batch{Out: c.out, Watch: prog})
	prog.done()
	if err != nil {
		return envError(err)
	}
	rs = scenarios.Cover(rs)
	fmt.Fprintf(stderr, "matrix took %s%s; %s\n", time.Since(started).Round(time.Millisecond), shardNote(shard, len(rs)),
		cellTime(time.Since(started), rs, min(*workers, len(cells))))
	doc := results.NewDocument(rs, prog.lat, "matrix", started)
	doc.Shard, doc.Skipped = shard, skipped
	if c.out != "" {
		view.Report = filepath.Join(c.out, rundir.ReportFile)
	}
	if err := writeOutput(c, stdout, doc, func(w io.Writer) error {
		if err := reports.WriteTable(w, rs, view); err != nil {
			return err
		}
		if len(skipped) > 0 {
			fmt.Fprintln(w)
			tellSkippedCells(w, view, skipped)
		}
		if err := shardSummary(w, shard, len(rs)); err != nil {
			return err
		}
		fmt.Fprintln(w)
		return reports.WriteVerdict(w, doc, view, "")
	}); err != nil {
		return err
	}
	announceOut(stderr, c.out)
	return verdictExit(matrixExit(rs))
}

// tellSkippedCells says which cells did not run and why (a strategy on
// InnoDB and a scenario of the replicated Postgres), one line per reason,
// wrapped.
func tellSkippedCells(w io.Writer, view reports.View, skipped []results.Skip) {
	var reasons []string
	by := map[string][]results.Skip{}
	for _, s := range skipped {
		if by[s.Reason] == nil {
			reasons = append(reasons, s.Reason)
		}
		by[s.Reason] = append(by[s.Reason], s)
	}
	for _, r := range reasons {
		fmt.Fprint(w, reports.Wrap("skipped ", "  ", cellsNamed(by[r])+": "+r, view.Width))
	}
}

// cellsNamed names the cells: "a / x" for one; "a, b under x and y (4
// cells)" for every strategy of them under every scenario; else each
// "a / x".
func cellsNamed(ss []results.Skip) string {
	var sts, scs, pairs []string
	for _, s := range ss {
		if !slices.Contains(sts, s.Strategy) {
			sts = append(sts, s.Strategy)
		}
		if !slices.Contains(scs, s.Scenario) {
			scs = append(scs, s.Scenario)
		}
		pairs = append(pairs, s.Strategy+" / "+s.Scenario)
	}
	if len(ss) == 1 || len(sts)*len(scs) != len(ss) {
		return strings.Join(pairs, ", ")
	}
	return fmt.Sprintf("%s under %s (%d cells)", strings.Join(sts, ", "), joined(scs), len(ss))
}

// joined is "a", "a and b", "a, b and c".
func joined(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// strategiesOf names the cells' strategies.
func strategiesOf(cells []scenarios.Cell) []string {
	out := make([]string, 0, len(cells))
	for _, c := range cells {
		out = append(out, c.Strategy)
	}
	return out
}

// defaultParallel is how many cells the matrix runs at once by default
// (--parallel 0): a cell spends most of its time waiting (delays, TTLs,
// faults, probes), so three per CPU, between 2 and 8. Measured on 2 CPUs
// (docs/matrix.md): 6 at once take 0.19 of the cells' summed time where 2 took
// 0.52, and a 3-seed matrix at 6 under 3x CPU oversubscription
// (make matrix-stress) had every one of its 720 runs as declared.
func defaultParallel(cpus int) int { return min(8, max(2, 3*cpus)) }

// cellTime says how much of the cells' own time the matrix overlapped:
// its wall time over the sum of the cells' durations.
func cellTime(wall time.Duration, rs []scenarios.Result, workers int) string {
	var sum time.Duration
	for _, r := range rs {
		sum += time.Duration(r.DurationMS) * time.Millisecond
	}
	if sum <= 0 {
		return fmt.Sprintf("%d cells at once", workers)
	}
	return fmt.Sprintf("%d cells at once: the cells' own durations sum to %s, wall / sum %.2f",
		workers, sum.Round(100*time.Millisecond), wall.Seconds()/sum.Seconds())
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

// progress shows which cell runs, a single rewritten line on a terminal,
// one line per cell otherwise, and gathers the latencies of finished cells.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	n     int
	tty   bool
	cols  int // the terminal's width, when it says
	quiet bool
	lat   *results.Latencies
	// statuses counts the answers the cells got, by status.
	statuses map[int]int
	// onFinish, if set, sees every finished cell, under the lock.
	onFinish func(scenarios.Result)
}

func newProgress(w io.Writer, total int, quiet bool) *progress {
	tty, cols := terminal(w)
	return &progress{w: w, total: total, tty: tty, cols: cols, quiet: quiet, lat: results.NewLatencies(), statuses: map[int]int{}}
}

// setTotal says how many cells the run now plans (measuring a user's
// service can move some out).
func (p *progress) setTotal(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = n
}

// Start shows the cell that starts.
func (p *progress) Start(c scenarios.Cell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quiet || !p.tty {
		return
	}
	line := fmt.Sprintf("[%d/%d done] running %s / %s seed %d ...", p.n, p.total, c.Strategy, c.Scenario, c.Seed)
	if p.cols > 0 && len(line) >= p.cols { // a wrapped line would not be rewritten in place
		line = line[:p.cols-1]
	}
	fmt.Fprint(p.w, "\r\033[K"+line)
}

// Finish counts a finished cell and its latencies.
func (p *progress) Finish(r scenarios.Result, rec scenarios.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.lat.Add(r.Strategy, rec.Obs.History.Attempts)
	for _, a := range rec.Obs.History.Attempts {
		p.statuses[a.Status]++
	}
	if p.onFinish != nil {
		p.onFinish(r)
	}
	if p.quiet || p.tty {
		return
	}
	settled := ""
	if rec.Cell.Service() {
		settled = fmt.Sprintf("; the ledger settled %s after the last request", rec.Obs.Settled.Round(time.Millisecond))
	}
	fmt.Fprintf(p.w, "[%d/%d] %s / %s seed %d: %s (%d ms%s)\n", p.n, p.total, r.Strategy, r.Scenario, r.Seed, r.Verdict, r.DurationMS, settled)
}

func (p *progress) done() {
	if !p.quiet && p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
