package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
)

// cmdCheck re-checks a saved run offline: every finished cell is judged again
// from its history and snapshots, and compared with the verdict saved then.
// A run that was interrupted is said to be, and is inconclusive (exit 4)
// unless a finished cell says worse.
func cmdCheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	jsonFile := fs.String("json", "", "write the re-checked results as canonical JSON to FILE (- for stdout)")
	var tf termFlags
	tf.register(fs)
	dir, err := parseWithTarget(fs, args, "check DIR")
	if err != nil {
		return err
	}
	view, err := tf.view(stdout, "in the run directory "+dir)
	if err != nil {
		return err
	}
	dirs, err := rundir.Cells(dir)
	if err != nil && !rundir.Marked(dir) {
		return usageErrorf("check: %v", err)
	}
	progress := rundir.ReadProgress(dir, dirs)
	lat := results.NewLatencies()
	results, differ, incomplete, err := recheck(dirs, lat, stderr)
	if err != nil {
		return usageErrorf("check: %v", err)
	}
	if len(results) == 0 { // a run stopped before any cell finished: nothing proved
		fmt.Fprintf(stderr, "re-checked 0 cells offline: %d incomplete (not checked)%s; the run stopped before any cell finished\n",
			incomplete, neverStarted(progress))
		return verdictExit(exitInconclusive)
	}
	saved := savedDocument(dir)
	results = scenarios.Cover(rundir.InRunOrder(results, saved.Results))
	c := common{jsonFile: *jsonFile}
	if err := output(c, stdout, results, lat, "check", time.Now(), func(w io.Writer) error {
		if saved.Command == "run" && len(results) == 1 {
			return reports.WriteDetail(w, results[0], view)
		}
		return reports.WriteTable(w, results, view)
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "re-checked %d cells offline: %d differ from the saved verdicts, %d incomplete (not checked)\n",
		len(results), differ, incomplete)
	code := matrixExit(results)
	if saved.Command == "run" && len(results) == 1 {
		code = runExit(results[0].Verdict)
	}
	if differ > 0 {
		code = exitViolated
	}
	if progress.Interrupted() {
		fmt.Fprintln(stderr, interrupted(progress))
		if code != exitViolated {
			code = exitInconclusive
		}
	}
	return verdictExit(code)
}

// neverStarted says how many of the run's cells never started, if it
// recorded how many it planned.
func neverStarted(p rundir.Progress) string {
	if n := p.NeverStarted(); n >= 0 {
		return fmt.Sprintf(", %d of %d never started", n, p.Planned)
	}
	return ""
}

// interrupted says how far an interrupted run got.
func interrupted(p rundir.Progress) string {
	mid := p.Started - p.Finished
	if n := p.NeverStarted(); n >= 0 {
		return fmt.Sprintf("the run was interrupted: %d of %d cells finished, %d stopped mid-cell, %d never started (nothing proved about them)",
			p.Finished, p.Planned, mid, n)
	}
	return fmt.Sprintf("the run was interrupted: %d cells finished, %d stopped mid-cell (how many never started is not recorded)", p.Finished, mid)
}

// recheck judges every complete cell again; it tells on stderr each cell
// left incomplete or whose new verdict or counts differ from the saved ones.
func recheck(dirs []string, lat *results.Latencies, stderr io.Writer) (results []scenarios.Result, differ, incomplete int, err error) {
	checked, left, err := rundir.Recheck(dirs)
	if err != nil {
		return nil, 0, 0, err
	}
	for _, d := range left {
		fmt.Fprintf(stderr, "%s: incomplete (the run stopped before this cell finished)\n", d)
	}
	for _, c := range checked {
		lat.Add(c.Now.Strategy, c.Record.Obs.History.Attempts)
		if c.Differs() {
			differ++
			fmt.Fprintf(stderr, "%s: saved %s %v, re-checked %s %v\n", c.Dir, c.Saved.Verdict, c.Saved.Anomalies, c.Now.Verdict, c.Now.Anomalies)
		}
		results = append(results, c.Now)
	}
	return results, differ, len(left), nil
}

// savedDocument is the run's saved document, if it has one that reads.
func savedDocument(dir string) results.Document {
	doc, err := rundir.ReadDocument(dir)
	if err != nil {
		return results.Document{}
	}
	return doc
}

// parseWithTarget parses flags around one positional argument (a directory
// or file), which may come before or after them.
func parseWithTarget(fs *flag.FlagSet, args []string, usage string) (string, error) {
	var target string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		target, args = args[0], args[1:]
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return "", flagError(fs, err)
	}
	if target == "" && fs.NArg() > 0 {
		target = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return "", flagError(fs, err)
		}
	}
	if target == "" || fs.NArg() > 0 {
		return "", usageErrorf("usage: idemchaos %s", usage)
	}
	return target, nil
}
