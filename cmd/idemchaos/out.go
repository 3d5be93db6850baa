package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
)

// prepareOut readies dir, when given, for a new run (rundir.Prepare):
// absent or empty, marked, with the number of cells it plans.
func prepareOut(dir string, planned int) error {
	if dir == "" {
		return nil
	}
	if err := rundir.Prepare(dir, planned); err != nil {
		return usageErrorf("--out %v", err)
	}
	return nil
}

// saveDocument writes the run's document at the root of out.
func saveDocument(out string, doc results.Document) error {
	if out == "" {
		return nil
	}
	return rundir.WriteDocument(out, doc)
}

// saveRun writes the run's document at the root of out, and its HTML
// page beside it: the run's report, or the page of its explorations when
// it holds nothing else (none for a run that explored too: a page of one
// would leave the other out, and could pass a run that failed).
func saveRun(out string, doc results.Document) error {
	if err := saveDocument(out, doc); err != nil || out == "" || len(doc.Explorations) > 0 && len(doc.Results) > 0 {
		return err
	}
	return saveReport(out, doc)
}

// saveReport writes the document's HTML page at the root of out.
func saveReport(out string, doc results.Document) error {
	return rundir.WriteAtomic(filepath.Join(out, rundir.ReportFile), func(w io.Writer) error { return reports.WriteRunHTML(w, doc) })
}

// announceOut tells, in one line, where the run was saved: its HTML
// report, when it has one (the line is then the path, never wrapped).
func announceOut(w io.Writer, out string) {
	if out == "" {
		return
	}
	if page := filepath.Join(out, rundir.ReportFile); exists(page) {
		fmt.Fprintf(w, "HTML report: %s\n", page)
		return
	}
	fmt.Fprintf(w, "run saved in %s (idemchaos check %s; idemchaos report %s --format html -o report.html)\n", out, out, out)
}

// announceExplored tells, in one line, where a run holding an
// exploration was saved, and what reads it: its page, when it has one.
func announceExplored(w io.Writer, out string) {
	if out == "" {
		return
	}
	if page := filepath.Join(out, rundir.ReportFile); exists(page) {
		fmt.Fprintf(w, "saved in %s (idemchaos check %s judges it again); its page: %s\n", out, out, page)
		return
	}
	fmt.Fprintf(w, "saved in %s (idemchaos check %s judges it again; idemchaos report %s shows it)\n", out, out, out)
}

// exists reports whether path names a file.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
