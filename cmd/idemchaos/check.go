package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/rundir"
)

// cmdCheck re-checks a saved run offline: every finished cell is judged again
// from its history and snapshots, and compared with the verdict saved then.
func cmdCheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	jsonFile := fs.String("json", "", "write the re-checked results as canonical JSON to FILE (- for stdout)")
	dir, err := parseWithTarget(fs, args, "check DIR")
	if err != nil {
		return err
	}
	dirs, err := rundir.Cells(dir)
	if err != nil && !rundir.Marked(dir) {
		return usageErrorf("check: %v", err)
	}
	lat := reports.NewLatencies()
	results, differ, incomplete, err := recheck(dirs, lat, stderr)
	if err != nil {
		return usageErrorf("check: %v", err)
	}
	if len(results) == 0 { // a run stopped before any cell finished: nothing proved
		fmt.Fprintf(stderr, "re-checked 0 cells offline: %d incomplete (not checked); the run stopped before any cell finished\n", incomplete)
		return verdictExit(exitInconclusive)
	}
	command := savedCommand(dir)
	c := common{jsonFile: *jsonFile}
	if err := output(c, stdout, results, lat, "check", time.Now(), func(w io.Writer) error {
		if command == "run" && len(results) == 1 {
			return reports.WriteDetail(w, results[0])
		}
		return reports.WriteTable(w, results)
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "re-checked %d cells offline: %d differ from the saved verdicts, %d incomplete (not checked)\n",
		len(results), differ, incomplete)
	if differ > 0 {
		return verdictExit(exitViolated)
	}
	if command == "run" && len(results) == 1 {
		return verdictExit(runExit(results[0].Verdict))
	}
	return verdictExit(matrixExit(results))
}

// recheck judges every complete cell again; it tells on stderr each cell
// left incomplete or whose new verdict or counts differ from the saved ones.
func recheck(dirs []string, lat *reports.Latencies, stderr io.Writer) (results []scenarios.Result, differ, incomplete int, err error) {
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

// savedCommand is the command that made the run ("run" or "matrix"), if known.
func savedCommand(dir string) string {
	f, err := os.Open(filepath.Join(dir, rundir.DocumentFile))
	if err != nil {
		return ""
	}
	defer f.Close()
	doc, err := reports.ReadJSON(f)
	if err != nil {
		return ""
	}
	return doc.Command
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
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stdout)
			fs.PrintDefaults()
			return "", err
		}
		return "", usageErrorf("%s: %v", fs.Name(), err)
	}
	if target == "" && fs.NArg() > 0 {
		target = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return "", usageErrorf("%s: %v", fs.Name(), err)
		}
	}
	if target == "" || fs.NArg() > 0 {
		return "", usageErrorf("usage: idemchaos %s", usage)
	}
	return target, nil
}
