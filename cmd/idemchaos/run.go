package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c common
	c.register(fs)
	var t targetFlags
	t.register(fs)
	st := fs.String("strategy", "", "strategy under test")
	sc := fs.String("scenario", "", "scenario to run")
	scFile := fs.String("scenario-file", "", "run the scenario defined in this YAML file instead (see examples/)")
	seed := fs.Uint64("seed", 1, "root seed: the same seed gives the same plan and fault schedule")
	c.term.register(fs)
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
	cell, err := scenarioCell(*sc, *scFile)
	if err != nil {
		return err
	}
	cell.Seed, cell.Profile = *seed, profile
	if t.set() {
		if *st != "" {
			return usageErrorf("--strategy and --target-url: give one (a built-in strategy, or your own service)")
		}
		return runTarget(ctx, c, t, []scenarios.Cell{cell}, "run", view, stdout, stderr)
	}
	if err := t.stray(); err != nil {
		return err
	}
	if err := requireName("strategy", *st, design.Names()); err != nil {
		return err
	}
	cell.Strategy, cell.Replicas = *st, c.replicas
	if _, skipped := engine.SplitSkipped([]scenarios.Cell{cell}); len(skipped) > 0 {
		return usageErrorf("scenario %s cannot run strategy %s: it %s", skipped[0].Scenario, *st, skipped[0].Reason)
	}
	if c.dryRun {
		if err := dryRun(stdout, "run", []scenarios.Cell{cell}, []scenarios.Cell{cell}, nil, 0); err != nil {
			return err
		}
		return tellExplore(stdout, cell)
	}
	if err := prepareOut(c.out, 1); err != nil {
		return err
	}
	s, err := open(ctx, c, 1, stderr, cell.Strategy)
	if err != nil {
		return err
	}
	defer s.Close()
	started := time.Now()
	res, rec, err := engine.Run(ctx, s.Executors()[0], cell, c.out)
	if err != nil {
		return envError(err)
	}
	res = scenarios.Cover([]scenarios.Result{res})[0]
	lat := results.NewLatencies()
	lat.Add(res.Strategy, rec.Obs.History.Attempts)
	var explored []explore.Result
	if spec, ok := cellExplore(cell); ok {
		if explored, err = s.Builtins[0].Explore(ctx, cell.Strategy, spec); err != nil {
			return envError(err)
		}
		for i := range explored {
			explored[i].Args = "--strategy " + cell.Strategy
		}
	}
	doc := results.NewDocument([]scenarios.Result{res}, lat, "run", started)
	doc.Explorations = explored
	if err := writeOutput(c, stdout, doc, func(w io.Writer) error {
		return writeRun(w, res, explored, view)
	}); err != nil {
		return err
	}
	announceRun(stderr, c.out, explored)
	return verdictExit(worseExit(runExit(res.Verdict), exploreExit(explored)))
}

// writeRun writes a run's one cell in detail, then what its scenario
// file's exploration proved.
func writeRun(w io.Writer, res scenarios.Result, explored []explore.Result, view reports.View) error {
	if err := reports.WriteDetail(w, res, view); err != nil || len(explored) == 0 {
		return err
	}
	fmt.Fprintln(w)
	return reports.WriteExplorations(w, explored, view)
}

// announceRun tells where a run was saved, as a run that explored is.
func announceRun(w io.Writer, out string, explored []explore.Result) {
	if len(explored) > 0 {
		announceExplored(w, out)
		return
	}
	announceOut(w, out)
}

func runExit(v scenarios.Verdict) int {
	switch v {
	case scenarios.Fail:
		return exitViolated
	case scenarios.Inconclusive:
		return exitInconclusive
	}
	return exitPass
}

// output saves the document in the run directory and the JSON file if asked,
// and writes the human view unless the JSON goes to stdout.
func output(c common, stdout io.Writer, rs []scenarios.Result, lat *results.Latencies, cmd string, started time.Time, human func(io.Writer) error) error {
	return writeOutput(c, stdout, results.NewDocument(rs, lat, cmd, started), human)
}

func writeOutput(c common, stdout io.Writer, doc results.Document, human func(io.Writer) error) error {
	if err := saveRun(c.out, doc); err != nil {
		return err
	}
	if c.jsonFile != "" {
		if err := writeFileOrStdout(c.jsonFile, stdout, func(w io.Writer) error { return results.WriteJSON(w, doc) }); err != nil {
			return err
		}
		if c.jsonFile == "-" {
			return nil
		}
	}
	return human(stdout)
}
