package main

import (
	"context"
	"flag"
	"io"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	scenario, args := splitScenario(args)
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	var c common
	c.register(fs)
	st := fs.String("strategy", "", "strategy to show (default: the one the scenario shows best, see --list)")
	seed := fs.Uint64("seed", 1, "root seed: the same seed tells the same story")
	mermaidOnly := fs.Bool("mermaid-only", false, "print only the Mermaid sequence diagram")
	noTimings := fs.Bool("no-timings", false, "leave out the timings section (what varies from run to run)")
	list := fs.Bool("list", false, "list which demo shows which anomaly class")
	c.term.registerColor(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *list {
		return reports.WriteDemoList(stdout)
	}
	view, err := c.view(stdout)
	if err != nil {
		return err
	}
	if scenarios.IsHiddenLesson(scenario) {
		if *st != "" || *mermaidOnly {
			return usageErrorf("demo %s: a lesson runs no strategy and draws no diagram (no --strategy, --mermaid-only)", scenario)
		}
		return demoLesson(ctx, scenario, c, view, stdout, stderr)
	}
	cell, err := demoCell(scenario, *st, *seed, c)
	if err != nil {
		return err
	}
	if _, skipped := engine.SplitSkipped([]scenarios.Cell{cell}); len(skipped) > 0 {
		return usageErrorf("scenario %s cannot run strategy %s: it %s", skipped[0].Scenario, cell.Strategy, skipped[0].Reason)
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
	d, err := engine.Tell(ctx, s.Executors()[0], cell, c.out)
	if err != nil {
		return envError(err)
	}
	sc, _ := scenarios.Lookup(cell.Scenario) // demoCell checked the name
	lat := results.NewLatencies()
	lat.Add(d.Result.Strategy, d.Record.Obs.History.Attempts)
	if err := output(c, stdout, []scenarios.Result{d.Result}, lat, "demo", started, func(w io.Writer) error {
		if *mermaidOnly {
			_, err := io.WriteString(w, d.Story.Mermaid)
			return err
		}
		return reports.WriteDemo(w, reports.Demo{Story: d.Story, Strategy: cell.Strategy, Doc: sc.Doc, Runs: d.Runs, Of: engine.MaxDemoRuns},
			!*noTimings, view)
	}); err != nil {
		return err
	}
	announceOut(stderr, c.out)
	return verdictExit(demoExit(d))
}

// splitScenario takes the scenario name that comes before the flags.
func splitScenario(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// demoCell checks the names and builds the cell to run.
func demoCell(scenario, st string, seed uint64, c common) (scenarios.Cell, error) {
	if scenario == "" {
		return scenarios.Cell{}, usageErrorf("demo: which scenario? idemchaos demo SCENARIO [--strategy S] (known: %s)",
			strings.Join(scenarios.Names(), ", "))
	}
	sc, err := scenarios.Lookup(scenario)
	if err != nil {
		return scenarios.Cell{}, usageErrorf("demo: unknown scenario %q (%sknown: %s; lessons: %s)", scenario,
			didYouMean(scenario, scenarios.Names()), strings.Join(scenarios.Names(), ", "), strings.Join(lessonNames(), ", "))
	}
	if sc.ServiceOnly {
		return scenarios.Cell{}, usageErrorf("demo: %s %s; run it against your service: idemchaos run --target-url URL --scenario %s",
			scenario, scenarios.SkipServiceOnly, scenario)
	}
	if st == "" {
		st = scenarios.DemoStrategy(scenario)
	}
	if err := requireName("strategy", st, design.Names()); err != nil {
		return scenarios.Cell{}, err
	}
	profile, err := c.check()
	if err != nil {
		return scenarios.Cell{}, err
	}
	return scenarios.Cell{Strategy: st, Scenario: scenario, Seed: seed, Profile: profile, Replicas: c.replicas}, nil
}

// demoExit: 1 when the story ends in an anomaly, 4 when the run could not
// prove anything, else 0.
func demoExit(d engine.Demo) int {
	switch {
	case len(d.Story.Anomalies) > 0:
		return exitViolated
	case d.Result.Verdict == scenarios.Inconclusive:
		return exitInconclusive
	}
	return exitPass
}

// demoLesson runs a hidden-retry lesson. Exit 1 when its trap sprang.
func demoLesson(ctx context.Context, name string, c common, view reports.View, stdout, stderr io.Writer) error {
	s, err := open(ctx, c, 1, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	sprang, err := false, error(nil)
	switch name {
	case scenarios.LessonGoHTTPResend:
		sprang, err = httpLesson(ctx, s.Builtins[0], view, stdout)
	case scenarios.LessonClientNewKey:
		sprang, err = clientLesson(ctx, s.Services, view, stdout)
	default:
		sprang, err = redisLesson(ctx, s.Builtins[0], view, stdout)
	}
	if err != nil || !sprang {
		return err
	}
	return verdictExit(exitViolated)
}

// httpLesson: the same keyed POST and fault without a key layer, then on
// pg-tx.
func httpLesson(ctx context.Context, b *engine.Builtin, view reports.View, stdout io.Writer) (bool, error) {
	var runs []scenarios.HTTPResend
	for _, st := range scenarios.HTTPResendStrategies() {
		r, err := b.HTTPResendLesson(ctx, st)
		if err != nil {
			return false, envError(err)
		}
		runs = append(runs, r)
	}
	return reports.WriteHTTPResend(stdout, runs, view)
}

// clientLesson: the same dropped answer, met by a client that keeps its
// key, then by one that makes a new key per try.
func clientLesson(ctx context.Context, services *provision.Services, view reports.View, stdout io.Writer) (bool, error) {
	runs, err := clientmode.Lesson(ctx, services)
	if err != nil {
		return false, envError(err)
	}
	return reports.WriteClientLesson(stdout, runs, view)
}

// redisLesson: the same SET NX and fault with the library's default
// retries, then with none.
func redisLesson(ctx context.Context, b *engine.Builtin, view reports.View, stdout io.Writer) (bool, error) {
	var runs []scenarios.RedisRetry
	for _, retries := range []int{0, -1} {
		r, err := b.RedisRetryLesson(ctx, retries)
		if err != nil {
			return false, envError(err)
		}
		runs = append(runs, r)
	}
	return reports.WriteRedisRetry(stdout, runs, view)
}

func lessonNames() []string {
	var names []string
	for _, l := range scenarios.HiddenLessons() {
		names = append(names, l.Name)
	}
	return names
}
