package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/rundir"
)

// renderers by --format, for a matrix (or run) document; the table as the
// view lays it out.
func renderers(view reports.View) map[string]func(io.Writer, reports.Document) error {
	return map[string]func(io.Writer, reports.Document) error{
		"table":    func(w io.Writer, d reports.Document) error { return reports.WriteTable(w, d.Results, view) },
		"json":     reports.WriteJSON,
		"junit":    reports.WriteJUnit,
		"markdown": reports.WriteMarkdown,
		"html":     reports.WriteHTML,
	}
}

// benchRenderers by --format, for a bench document: no junit, a bench has
// no verdicts.
var benchRenderers = map[string]func(io.Writer, reports.Bench) error{
	"table":    reports.WriteBenchTable,
	"json":     reports.WriteBenchJSON,
	"markdown": reports.WriteBenchMarkdown,
	"html":     reports.WriteBenchHTML,
}

// cmdReport renders a saved run (its directory, or a --json file) or a
// saved bench (its --json file) in one format.
func cmdReport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	format := fs.String("format", "table", "table, json, junit (matrix results only), markdown or html")
	outFile := fs.String("o", "", "write to FILE instead of stdout")
	var tf termFlags
	tf.register(fs)
	target, err := parseWithTarget(fs, args, "report DIR|FILE --format table|json|junit|markdown|html [-o FILE]")
	if err != nil {
		return err
	}
	var screen io.Writer = stdout
	if *outFile != "" {
		screen = io.Discard // a file: plain text, the default width
	}
	view, err := tf.view(screen, "in "+target)
	if err != nil {
		return err
	}
	if _, ok := renderers(view)[*format]; !ok {
		return usageErrorf("report: --format %q: want table, json, junit, markdown or html", *format)
	}
	render, err := loadRenderer(target, *format, view)
	if err != nil {
		return err
	}
	if *outFile == "" {
		return render(stdout)
	}
	if err := rundir.WriteAtomic(*outFile, render); err != nil {
		return usageErrorf("report: %v", err)
	}
	return nil
}

// loadRenderer reads a run directory's results.json, or a JSON file, and
// binds it to the renderer of the format for its kind of document.
func loadRenderer(target, format string, view reports.View) (func(io.Writer) error, error) {
	path := target
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		path = filepath.Join(target, rundir.DocumentFile)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && rundir.Marked(target) {
			return partialRenderer(target, format, view)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("report: %v", err)
	}
	if reports.IsBench(data) {
		return benchRenderer(path, data, format)
	}
	doc, err := reports.ReadJSON(bytes.NewReader(data))
	if err != nil {
		return nil, usageErrorf("report: %s: %s", path, strings.TrimPrefix(err.Error(), "read results: "))
	}
	render := renderers(view)[format]
	return func(w io.Writer) error { return render(w, doc) }, nil
}

// benchRenderer binds a bench document to the renderer of the format.
func benchRenderer(path string, data []byte, format string) (func(io.Writer) error, error) {
	render, ok := benchRenderers[format]
	if !ok {
		return nil, usageErrorf("report: --format %s: junit is for matrix results; %s is a bench document (want table, json, markdown or html)", format, path)
	}
	doc, err := reports.ReadBench(bytes.NewReader(data))
	if err != nil {
		return nil, usageErrorf("report: %s: %s", path, strings.TrimPrefix(err.Error(), "read bench: "))
	}
	return func(w io.Writer) error { return render(w, doc) }, nil
}

// partialRenderer renders a run directory whose run was stopped before it
// wrote its document, from the cells that finished.
func partialRenderer(dir, format string, view reports.View) (func(io.Writer) error, error) {
	results, err := rundir.Finished(dir)
	if err != nil {
		return nil, usageErrorf("report: %v", err)
	}
	doc := reports.Document{Command: "partial", Results: inRunOrder(results, nil)}
	if len(doc.Results) == 0 {
		return nil, usageErrorf("report: %s: the run stopped before any cell finished; nothing to report", dir)
	}
	render := renderers(view)[format]
	return func(w io.Writer) error { return render(w, doc) }, nil
}
