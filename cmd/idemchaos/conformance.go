package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/runner"
	"github.com/idemchaos/idemchaos/scenarios/runner/conform"
	"github.com/idemchaos/idemchaos/targets/api"
)

// conformanceFlags are the flags of idemchaos conformance.
type conformanceFlags struct {
	common
	targets, scens, profiles string
	source, work             string
	first                    uint64
	seeds, parallel          int
	quiet                    bool
}

func cmdConformance(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	var f conformanceFlags
	f.common.register(fs)
	fs.StringVar(&f.targets, "targets", "", "comma-separated conformance targets (default: all)")
	fs.StringVar(&f.scens, "scenarios", "", "comma-separated scenarios (default: all that can run)")
	fs.StringVar(&f.profiles, "profiles", "", "comma-separated profiles (default: ietf,stripe)")
	fs.StringVar(&f.source, "source", ".", "the idemchaos repository, where conformance/ and cmd/paymentd are")
	fs.StringVar(&f.work, "work", "", "where the targets are built (default: a temporary directory)")
	fs.Uint64Var(&f.first, "seed", 1, "first seed")
	fs.IntVar(&f.seeds, "seeds", 3, "seeds per cell: seed, seed+1, ...")
	fs.IntVar(&f.parallel, "parallel", 2, "targets run at once (1 to 4)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress display")
	if err := parse(fs, args); err != nil {
		return err
	}
	plan, err := f.plan()
	if err != nil {
		return err
	}
	if err := prepareOut(f.out); err != nil {
		return err
	}
	work := f.work
	if work == "" {
		if work, err = os.MkdirTemp("", "idemchaos-conformance-*"); err != nil {
			return envError(err)
		}
		defer os.RemoveAll(work)
	}
	s, err := open(ctx, f.common, 0, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	started := time.Now()
	prog := newProgress(stderr, 0, f.quiet)
	plan.Watch, plan.Out = prog, f.out
	src, err := filepath.Abs(f.source)
	if err != nil {
		return usageErrorf("--source: %v", err)
	}
	out, err := conform.Run(ctx, conform.Env{Session: s, Builds: &conform.Builds{Source: src, Work: work, Log: stderr}}, plan)
	prog.done()
	if err != nil {
		return envError(err)
	}
	fmt.Fprintf(stderr, "conformance took %s\n", time.Since(started).Round(time.Millisecond))
	doc := reports.NewDocument(out.Results, prog.lat, "conformance", started)
	doc.Skipped = out.Skipped
	if err := saveDocument(f.out, doc); err != nil {
		return err
	}
	return reports.WriteTable(stdout, out.Results)
}

// plan reads the flags into the run's plan.
func (f *conformanceFlags) plan() (conform.Plan, error) {
	var p conform.Plan
	names, err := splitList("targets", f.targets, conformance.Names())
	if err != nil {
		return p, err
	}
	targets, err := conformance.Lookup(names)
	if err != nil {
		return p, usageErrorf("%v", err)
	}
	if p.Scenarios, err = splitList("scenarios", f.scens, scenarios.Names()); err != nil {
		return p, err
	}
	profNames, err := splitList("profiles", f.profiles, []string{api.IETF.Name, api.Stripe.Name})
	if err != nil {
		return p, err
	}
	if p.Seeds, err = seedList(f.first, f.seeds); err != nil {
		return p, err
	}
	if f.parallel < 1 || f.parallel > 4 {
		return p, usageErrorf("--parallel %d: want 1 to 4", f.parallel)
	}
	p.Parallel = f.parallel
	for _, t := range targets {
		for _, n := range profNames {
			prof, err := api.ProfileByName(n)
			if err != nil {
				return p, usageErrorf("--profiles: %v", err)
			}
			p.Rows = append(p.Rows, conform.Row{Target: t, Profile: prof})
		}
	}
	return p, nil
}

var _ runner.Watcher = (*progress)(nil)
