package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/rundir"
)

// renderers by --format.
var renderers = map[string]func(io.Writer, reports.Document) error{
	"table":    func(w io.Writer, d reports.Document) error { return reports.WriteTable(w, d.Results) },
	"json":     reports.WriteJSON,
	"junit":    reports.WriteJUnit,
	"markdown": reports.WriteMarkdown,
	"html":     reports.WriteHTML,
}

// cmdReport renders a saved run (its directory, or a --json file) in one format.
func cmdReport(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	format := fs.String("format", "table", "table, json, junit, markdown or html")
	outFile := fs.String("o", "", "write to FILE instead of stdout")
	target, err := parseWithTarget(fs, args, "report DIR|FILE --format table|json|junit|markdown|html [-o FILE]")
	if err != nil {
		return err
	}
	render, ok := renderers[*format]
	if !ok {
		return usageErrorf("report: --format %q: want table, json, junit, markdown or html", *format)
	}
	doc, err := loadDocument(target)
	if err != nil {
		return err
	}
	if *outFile == "" {
		return render(stdout, doc)
	}
	if err := rundir.WriteAtomic(*outFile, func(w io.Writer) error { return render(w, doc) }); err != nil {
		return usageErrorf("report: %v", err)
	}
	return nil
}

// loadDocument reads a run directory's results.json, or a JSON file.
func loadDocument(target string) (reports.Document, error) {
	path := target
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		path = filepath.Join(target, rundir.DocumentFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return reports.Document{}, usageErrorf("report: %v", err)
	}
	defer f.Close()
	doc, err := reports.ReadJSON(f)
	if err != nil {
		return doc, usageErrorf("report: %s: %s", path, strings.TrimPrefix(err.Error(), "read results: "))
	}
	return doc, nil
}
