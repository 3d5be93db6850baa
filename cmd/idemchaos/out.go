package main

import (
	"fmt"
	"io"

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

// announceOut tells where the run was saved.
func announceOut(w io.Writer, out string) {
	if out != "" {
		fmt.Fprintf(w, "run saved in %s (idemchaos check %s; idemchaos report %s --format html -o report.html)\n", out, out, out)
	}
}
