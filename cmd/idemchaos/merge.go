package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results/rundir"
)

// cmdMerge joins the run directories of a run's shards (matrix --shard,
// soak --shard) into one run directory; its exit code is the whole run's
// verdict, as the unsharded command's would be.
func cmdMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("out", "", "the merged run directory (new, or empty)")
	jsonFile := fs.String("json", "", "also write the merged document to FILE (- for stdout)")
	var tf termFlags
	tf.register(fs)
	dirs, err := parseDirs(fs, args)
	if err != nil {
		return err
	}
	view, err := tf.view(stdout, "in the run directory "+*out)
	if err != nil {
		return err
	}
	if len(dirs) == 0 || *out == "" {
		return usageErrorf("usage: idemchaos merge DIR... --out DIR (every shard's run directory, and a new one)")
	}
	m, err := rundir.ReadShards(dirs)
	if err != nil {
		return usageErrorf("merge: %v", err)
	}
	if err := m.CheckOut(*out); err != nil {
		return usageErrorf("merge: %v", err)
	}
	if err := prepareOut(*out, 0); err != nil {
		return err
	}
	if err := m.Write(*out); err != nil {
		return envError(err)
	}
	doc := m.Document()
	if doc.Command == "explore" {
		return mergedExploration(common{jsonFile: *jsonFile, out: *out}, m, view, stdout, stderr)
	}
	if err := saveReport(*out, doc); err != nil {
		return envError(err)
	}
	view.Report = filepath.Join(*out, rundir.ReportFile)
	if err := writeOutput(common{jsonFile: *jsonFile}, stdout, doc, func(w io.Writer) error {
		return reports.WriteTable(w, doc.Results, view)
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "merged %d shards of a %s: %d cells\n", m.N(), doc.Command, m.Cells())
	announceOut(stderr, *out)
	for _, r := range doc.Results {
		if r.Service {
			return verdictExit(targetExit(doc.Results))
		}
	}
	return verdictExit(matrixExit(doc.Results))
}

// mergedExploration shows the merged shards of an exploration as explore
// shows one, and exits as explore would.
func mergedExploration(c common, m *rundir.Shards, view reports.View, stdout, stderr io.Writer) error {
	doc := m.Document()
	if err := saveReport(c.out, doc); err != nil {
		return envError(err)
	}
	if err := writeOutput(common{jsonFile: c.jsonFile}, stdout, doc, func(w io.Writer) error {
		return reports.WriteExplorations(w, doc.Explorations, view)
	}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "merged %d shards of an exploration: %s\n", m.N(), plural(m.Cells(), "case"))
	announceExplored(stderr, c.out)
	return verdictExit(exploreExit(doc.Explorations))
}

// parseDirs parses flags among any number of positional arguments.
func parseDirs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var dirs []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			return dirs, nil
		}
		dirs, args = append(dirs, fs.Arg(0)), fs.Args()[1:]
	}
}
