package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/narrate"
	"github.com/idemchaos/idemchaos/scenarios/runner"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// maxDemoRuns bounds the runs of a demo whose gate gave up before the other
// request committed (a machine slower than the gate's patience).
const maxDemoRuns = 3

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
	if err := parse(fs, args); err != nil {
		return err
	}
	if *list {
		return demoList(stdout)
	}
	cell, err := demoCell(scenario, *st, *seed, c)
	if err != nil {
		return err
	}
	if err := prepareOut(c.out); err != nil {
		return err
	}
	s, err := open(ctx, c, 1, stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	started := time.Now()
	d, err := tellDemo(ctx, s.Builtins[0], cell, c.out)
	if err != nil {
		return envError(err)
	}
	if err := output(c, stdout, []scenarios.Result{d.res}, d.lat, "demo", started, func(w io.Writer) error {
		if *mermaidOnly {
			_, err := io.WriteString(w, d.story.Mermaid)
			return err
		}
		return writeDemo(w, d, !*noTimings)
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
	if _, err := scenarios.Lookup(scenario); err != nil {
		return scenarios.Cell{}, usageErrorf("demo: unknown scenario %q (known: %s)", scenario, strings.Join(scenarios.Names(), ", "))
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

// demo is a told run.
type demo struct {
	story narrate.Narrative
	res   scenarios.Result
	lat   *reports.Latencies
	doc   string
	runs  int
}

// tellDemo runs the cell (saved in out, if given) and tells it; a run whose
// gate gave up before the other request committed did not force its
// interleaving and is run again, at most maxDemoRuns times in all.
func tellDemo(ctx context.Context, r runner.Executor, cell scenarios.Cell, out string) (demo, error) {
	var d demo
	sc, err := scenarios.Lookup(cell.Scenario)
	if err != nil {
		return d, err
	}
	d.doc = sc.Doc
	for d.runs < maxDemoRuns && (d.runs == 0 || d.story.Unforced) {
		res, rec, err := runner.Run(ctx, r, cell, out)
		if err != nil {
			return d, err
		}
		d.res, d.story = res, narrate.Story(rec, res)
		d.lat = reports.NewLatencies()
		d.lat.Add(res.Strategy, rec.Obs.History.Attempts)
		d.runs++
	}
	return d, nil
}

// demoExit: 1 when the story ends in an anomaly, 4 when the run could not
// prove anything, else 0.
func demoExit(d demo) int {
	switch {
	case len(d.story.Anomalies) > 0:
		return exitViolated
	case d.res.Verdict == scenarios.Inconclusive:
		return exitInconclusive
	}
	return exitPass
}

// writeDemo prints the story, what its anomalies mean, the diagram and,
// if asked, the timings.
func writeDemo(w io.Writer, d demo, timings bool) error {
	fmt.Fprintf(w, "demo: %s\n%s\n\n", d.story.Title, d.doc)
	fmt.Fprint(w, d.story.Text())
	for _, name := range d.story.Anomalies {
		e := reports.Explain(name)
		fmt.Fprintf(w, "\n%s\n", e.Title)
		for _, p := range [][2]string{{"What happened", e.What}, {"Why", e.Why}, {"How to avoid it", e.Avoid}} {
			fmt.Fprint(w, wrap(p[0]+": "+p[1], "  ", 100))
		}
	}
	fmt.Fprintf(w, "\n```mermaid\n%s```\n", d.story.Mermaid)
	if !timings {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n", timingsHeader)
	if d.runs > 1 {
		fmt.Fprintf(w, "  run %d of at most %d: the gate of the earlier runs gave up before the other request committed\n",
			d.runs, maxDemoRuns)
	}
	if d.story.Unforced {
		fmt.Fprintln(w, "  this run's gate gave up before the other request committed: the interleaving was not forced")
	}
	for _, t := range d.story.Timings {
		fmt.Fprintf(w, "  %s\n", t)
	}
	return nil
}

// timingsHeader opens the section that varies from run to run; everything
// above it is the same on every run of the same seed.
const timingsHeader = "timings (these vary from run to run; the story above does not):"

// wrap breaks text into lines of at most width columns, each indented.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// demoList prints which demo shows which anomaly class, and each
// scenario's default strategy.
func demoList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ANOMALY\tDEMO\tWHAT IT SHOWS")
	for _, l := range scenarios.Lessons() {
		cmd := "(none)"
		if l.Scenario != "" {
			cmd = fmt.Sprintf("idemchaos demo %s --strategy %s", l.Scenario, l.Strategy)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", l.Anomaly, cmd, l.Shows)
	}
	fmt.Fprintln(tw, "SCENARIO\tDEFAULT STRATEGY\t")
	for _, sc := range scenarios.Names() {
		fmt.Fprintf(tw, "  %s\t%s\t\n", sc, scenarios.DemoStrategy(sc))
	}
	return tw.Flush()
}
