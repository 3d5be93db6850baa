package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
)

// cmdCheck re-checks a saved run offline: every finished cell is judged again
// from its history and snapshots, and compared with the verdict saved then;
// every order of an exploration the run saved is judged again from its
// records. A run that was interrupted is said to be, and is inconclusive
// (exit 4) unless a finished cell says worse.
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
	saved, err := savedDocument(dir)
	if err != nil {
		return usageErrorf("check: %v", err)
	}
	c := common{jsonFile: *jsonFile}
	if saved.Command == "explore" {
		return checkExplorations(c, dir, saved, view, stdout, stderr)
	}
	progress := rundir.ReadProgress(dir, dirs)
	lat := results.NewLatencies()
	rs, differ, incomplete, err := recheck(dirs, lat, stderr)
	if err != nil {
		return usageErrorf("check: %v", err)
	}
	if len(rs) == 0 { // a run stopped before any cell finished: nothing proved
		fmt.Fprintf(stderr, "re-checked 0 cells offline: %d incomplete (not checked)%s; the run stopped before any cell finished\n",
			incomplete, neverStarted(progress))
		return verdictExit(exitInconclusive)
	}
	rs = scenarios.Cover(rundir.InRunOrder(rs, saved.Results))
	explored, explDiffer := rejudge(dir, saved.Explorations, stderr)
	doc := results.NewDocument(rs, lat, "check", time.Now())
	doc.Explorations = explored
	if err := writeOutput(c, stdout, doc, func(w io.Writer) error {
		if err := writeChecked(w, saved, rs, view); err != nil || len(explored) == 0 {
			return err
		}
		fmt.Fprintln(w)
		return reports.WriteExplorations(w, explored, view)
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "re-checked %d cells offline: %d differ from the saved verdicts, %d incomplete (not checked)\n",
		len(rs), differ, incomplete)
	code := matrixExit(rs)
	if saved.Command == "run" && len(rs) == 1 {
		code = runExit(rs[0].Verdict)
	}
	code = worseExit(code, exploreExit(explored))
	if differ+explDiffer > 0 {
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

// writeChecked writes re-checked cells as the command that saved them
// did: a run's one cell in detail, else the table.
func writeChecked(w io.Writer, saved results.Document, rs []scenarios.Result, view reports.View) error {
	if saved.Command == "run" && len(rs) == 1 {
		return reports.WriteDetail(w, rs[0], view)
	}
	return reports.WriteTable(w, rs, view)
}

// checkExplorations judges a saved exploration again from its records,
// prints it as explore did, and exits as explore would; 1 when a case's
// verdict or an order's class differs from the saved one.
func checkExplorations(c common, dir string, saved results.Document, view reports.View, stdout, stderr io.Writer) error {
	now, differ := rejudge(dir, saved.Explorations, stderr)
	doc := saved
	doc.Command, doc.Explorations = "check", now
	if err := writeOutput(c, stdout, doc, func(w io.Writer) error { return reports.WriteExplorations(w, now, view) }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "re-judged %s of an exploration offline: %d differ from the saved verdicts\n", plural(len(now), "case"), differ)
	if differ > 0 {
		return verdictExit(exitViolated)
	}
	return verdictExit(exploreExit(now))
}

// rejudge judges every saved case of an exploration again from its
// records; it tells on stderr each case whose verdict or an order's class
// differs from the saved one.
func rejudge(dir string, saved []explore.Result, stderr io.Writer) (now []explore.Result, differ int) {
	for _, s := range saved {
		r := s.Rejudge()
		if r.Verdict() != s.Verdict() || !sameClasses(r.Runs, s.Runs) {
			differ++
			fmt.Fprintf(stderr, "%s: %s: saved %s (%s), re-judged %s (%s)\n", dir, s.Case, s.Verdict(), s.Sentence(), r.Verdict(), r.Sentence())
		}
		now = append(now, r)
	}
	return now, differ
}

// sameClasses reports whether each order has the same class and
// variations in a as in b.
func sameClasses(a, b []explore.Run) bool {
	return slices.EqualFunc(a, b, func(x, y explore.Run) bool { return x.Class == y.Class && slices.Equal(x.Varied, y.Varied) })
}

// worseExit is the worse of two verdicts' exit codes: a violation, then
// the environment, then inconclusive, then a pass.
func worseExit(a, b int) int {
	for _, code := range []int{exitViolated, exitEnv, exitInconclusive} {
		if a == code || b == code {
			return code
		}
	}
	return exitPass
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

// savedDocument is the run's saved document: empty when it has none (a
// run stopped before it wrote one); an error when it has one that does
// not read (an atomic write never leaves one half-written: the file was
// damaged, or is another tool's).
func savedDocument(dir string) (results.Document, error) {
	doc, err := rundir.ReadDocument(dir)
	if errors.Is(err, rundir.ErrNoDocument) {
		return results.Document{}, nil
	}
	return doc, err
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
