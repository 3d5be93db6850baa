package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

func cmdMatrix(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
	var c common
	c.register(fs)
	sts := fs.String("strategies", "", "comma-separated strategies (default: all)")
	scs := fs.String("scenarios", "", "comma-separated scenarios (default: all)")
	first := fs.Uint64("seed", 1, "first seed")
	n := fs.Int("seeds", 3, "number of seeds per cell: seed, seed+1, ...")
	quiet := fs.Bool("quiet", false, "no progress display")
	if err := parse(fs, args); err != nil {
		return err
	}
	profile, err := c.check()
	if err != nil {
		return err
	}
	strategies, err := splitList("strategies", *sts, strategy.Names())
	if err != nil {
		return err
	}
	scens, err := splitList("scenarios", *scs, scenarios.Names())
	if err != nil {
		return err
	}
	seeds, err := seedList(*first, *n)
	if err != nil {
		return err
	}
	var cells []scenarios.Cell
	for _, st := range strategies {
		for _, sc := range scens {
			for _, seed := range seeds {
				cells = append(cells, scenarios.Cell{Strategy: st, Scenario: sc, Seed: seed, Profile: profile, Replicas: c.replicas})
			}
		}
	}
	s, err := open(ctx, c, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	started := time.Now()
	prog := newProgress(stderr, len(cells), *quiet)
	results := make([]scenarios.Result, 0, len(cells))
	for _, cell := range cells {
		prog.start(cell)
		res, err := s.runner.Run(ctx, cell)
		if err != nil {
			prog.done()
			return envError(err)
		}
		prog.finish(res)
		results = append(results, res)
	}
	prog.done()
	fmt.Fprintf(stderr, "matrix took %s\n", time.Since(started).Round(time.Millisecond))
	if err := output(c.jsonFile, stdout, results, "matrix", started, func(w io.Writer) error {
		return reports.WriteTable(w, results)
	}); err != nil {
		return err
	}
	return verdictExit(matrixExit(results))
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
	w     io.Writer
	total int
	n     int
	tty   bool
	quiet bool
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
	p.n++
	if p.quiet || !p.tty {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s / %s seed %d ...", p.n, p.total, c.Strategy, c.Scenario, c.Seed)
}

func (p *progress) finish(r scenarios.Result) {
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
