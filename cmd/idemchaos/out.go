package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
)

// prepareOut checks that dir can take a new run (absent, or an empty
// directory), marks it as a run directory and, when planned > 0, records
// that the run is to run that many cells.
func prepareOut(dir string, planned int) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErrorf("--out: %v", err)
		}
	case err != nil:
		return usageErrorf("--out: %v", err)
	case len(entries) > 0:
		return usageErrorf("--out %s: the directory is not empty; choose a new one", dir)
	}
	if err := rundir.Mark(dir); err != nil {
		return usageErrorf("--out: %v", err)
	}
	if planned > 0 {
		if err := rundir.WritePlanned(dir, planned); err != nil {
			return usageErrorf("--out: %v", err)
		}
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
