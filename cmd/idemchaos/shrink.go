package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/engine/shrink"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/narrate"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// shrinkFlags are shrink's own flags.
type shrinkFlags struct {
	strategy, scenario, scenarioFile, file string
	seed                                   uint64
	k                                      int
	timeout                                time.Duration
}

func cmdShrink(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("shrink", flag.ContinueOnError)
	var c common
	c.register(fs)
	var t targetFlags
	t.register(fs)
	var f shrinkFlags
	fs.StringVar(&f.strategy, "strategy", "", "strategy of the failing cell (without DIR)")
	fs.StringVar(&f.scenario, "scenario", "", "scenario of the failing cell (without DIR)")
	fs.StringVar(&f.scenarioFile, "scenario-file", "", "the failing cell's scenario file instead (without DIR)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the failing cell (without DIR)")
	fs.IntVar(&f.k, "k", 3, "re-runs of every candidate: a smaller scenario is kept only if it fails all K (1 to 20)")
	fs.DurationVar(&f.timeout, "timeout", 4*time.Minute, "bound on the whole search, re-runs included (at most 1h)")
	fs.StringVar(&f.file, "file", "", "write the shrunk scenario file here (default shrunk-STRATEGY-SCENARIO-seed-N.yaml; never overwritten)")
	c.term.registerColor(fs)
	dir, err := parseOptionalTarget(fs, args)
	if err != nil {
		return err
	}
	profile, err := c.check()
	if err != nil {
		return err
	}
	if err := f.check(c); err != nil {
		return err
	}
	view, err := c.view(stdout)
	if err != nil {
		return err
	}
	cfg, err := shrinkCell(dir, f, t)
	if err != nil {
		return err
	}
	if dir == "" {
		cfg.Cell.Profile = profile
	}
	cfg.K, cfg.Timeout = f.k, f.timeout
	cfg.Progress = func(line string) { fmt.Fprintln(c.log(stderr), "shrink: "+line) }
	exec, closeExec, err := shrinkExecutor(ctx, c, t, &cfg, stderr)
	if err != nil {
		return err
	}
	defer closeExec()
	cfg.Exec = exec
	o, err := shrink.Run(ctx, cfg)
	switch {
	case errors.Is(err, shrink.ErrNoFailure):
		return &exitError{code: exitInconclusive, msg: "shrink: " + err.Error()}
	case err != nil && ctx.Err() == nil:
		return envError(fmt.Errorf("shrink: %w", err))
	case err != nil:
		return err
	}
	return writeShrunk(stdout, o, f.fileFor(cfg.Cell), view)
}

// parseOptionalTarget parses flags around at most one positional argument
// (DIR), before or after them.
func parseOptionalTarget(fs *flag.FlagSet, args []string) (string, error) {
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		return parseWithTarget(fs, args, "shrink [DIR] [flags]")
	}
	if err := parse(fs, args); err == nil {
		return "", nil
	}
	return parseWithTarget(fs, args, "shrink [DIR] [flags]")
}

// check refuses bad values and a half-given cell.
func (f shrinkFlags) check(c common) error {
	switch {
	case f.k < 1 || f.k > 20:
		return usageErrorf("--k %d: want 1 to 20", f.k)
	case f.timeout <= 0 || f.timeout > time.Hour:
		return usageErrorf("--timeout %s: want more than 0s, at most 1h", f.timeout)
	case c.out != "" || c.jsonFile != "":
		return usageErrorf("shrink writes a scenario file (--file), not --out or --json: run the file for those")
	}
	if f.file != "" {
		if _, err := os.Stat(f.file); err == nil {
			return usageErrorf("--file %s exists: shrink never overwrites a file", f.file)
		}
	}
	return nil
}

// fileFor is where the scenario file goes.
func (f shrinkFlags) fileFor(c scenarios.Cell) string {
	if f.file != "" {
		return f.file
	}
	return fmt.Sprintf("shrunk-%s-%s-seed-%d.yaml", c.Strategy, c.Scenario, c.Seed)
}

// shrinkCell is the failing cell: a saved one (DIR, a cell's directory or
// a run's, whose first failing cell is taken), else the flags'.
func shrinkCell(dir string, f shrinkFlags, t targetFlags) (shrink.Config, error) {
	if dir == "" {
		return flagCell(f, t)
	}
	if f.strategy != "" || f.scenario != "" || f.scenarioFile != "" {
		return shrink.Config{}, usageErrorf("shrink: DIR or --strategy/--scenario: give one")
	}
	cfg, cellDir, err := shrink.Saved(dir)
	if err != nil {
		return cfg, usageErrorf("shrink: %v", err)
	}
	switch {
	case cfg.Cell.Service() && !t.set():
		return cfg, usageErrorf("shrink: %s ran against a service: give its --target-url and --ledger-url again", cellDir)
	case cfg.Cell.Service():
		e, _, err := t.external()
		if err != nil {
			return cfg, err
		}
		cfg.Cell.Target, cfg.Cell.Strategy, cfg.Cell.Timing, cfg.Cell.Adapted = &e, e.Name, nil, nil
	}
	return cfg, nil
}

// flagCell is the cell --strategy (or --target-url), --scenario and --seed name.
func flagCell(f shrinkFlags, t targetFlags) (shrink.Config, error) {
	cell, err := scenarioCell(f.scenario, f.scenarioFile)
	if err != nil {
		return shrink.Config{}, err
	}
	cell.Seed = f.seed
	if t.set() {
		if f.strategy != "" {
			return shrink.Config{}, usageErrorf("--strategy and --target-url: give one (a built-in strategy, or your own service)")
		}
		e, _, err := t.external()
		if err != nil {
			return shrink.Config{}, err
		}
		cell.Target, cell.Strategy = &e, e.Name
		return shrink.Config{Cell: cell}, nil
	}
	if err := requireName("strategy", f.strategy, design.Names()); err != nil {
		return shrink.Config{}, err
	}
	cell.Strategy = f.strategy
	return shrink.Config{Cell: cell}, nil
}

// shrinkExecutor opens the stores (a built-in strategy) or the service.
func shrinkExecutor(ctx context.Context, c common, t targetFlags, cfg *shrink.Config, stderr io.Writer) (engine.Executor, func(), error) {
	if cfg.Cell.Service() {
		svc, err := openService(ctx, t, *cfg.Cell.Target, c.log(stderr))
		if err != nil {
			return nil, nil, err
		}
		return svc, func() { svc.Close() }, nil
	}
	cfg.Cell.Replicas = max(cfg.Cell.Replicas, c.replicas)
	s, err := open(ctx, c, 1, stderr, cfg.Cell.Strategy)
	if err != nil {
		return nil, nil, err
	}
	return s.Builtins[0], func() { s.Close() }, nil
}

// writeShrunk writes the scenario file, then tells what was shrunk, the
// repro line and the story of the shrunk run.
func writeShrunk(stdout io.Writer, o shrink.Outcome, file string, view reports.View) error {
	cell := o.Cell
	sp := *cell.Custom
	sp.File = file
	cell.Custom = &sp
	repro := cell.Repro()
	data, err := sp.YAML(fmt.Sprintf("%s: shrunk by idemchaos shrink; fails with %s on %d of %d re-runs", sp.Name, o.Anomaly, o.K, o.K),
		"  "+repro)
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return envError(err)
	}
	fmt.Fprintf(stdout, "shrunk %s / %s seed %d: %s -> %s\n", o.From.Strategy, o.From.Scenario, cell.Seed, size(o.Start), size(sp))
	fmt.Fprintf(stdout, "kept %d of %d cuts tried (%d runs in %s; a cut is kept only when it fails with %s on %d of %d re-runs, K=%d); %s\n",
		len(o.Kept), o.Tried, o.Runs, o.Took.Round(time.Second), o.Anomaly, o.K, o.K, o.K, o.Stopped)
	for _, k := range o.Kept {
		fmt.Fprintf(stdout, "  cut: %s\n", k)
	}
	abs, _ := filepath.Abs(file)
	fmt.Fprintf(stdout, "scenario file: %s\nrepro: %s\n\n", abs, repro)
	story := narrate.Story(o.Record, o.Result)
	return reports.WriteDemo(stdout, reports.Demo{Story: story, Strategy: o.Cell.Strategy, Doc: sp.Doc, Runs: 1, Of: 1}, false, view)
}

// size is "40 keys, up to 240 attempts".
func size(s spec.Spec) string {
	keys := fmt.Sprintf("%d keys", s.Traffic.Keys)
	if s.Traffic.Keys == 1 {
		keys = "1 key"
	}
	return fmt.Sprintf("%s, up to %d attempts", keys, s.Traffic.Keys*(1+s.Traffic.Duplicates)*s.Retries.MaxTries)
}
