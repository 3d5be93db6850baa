package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartialRunDirectory: a run stopped before it wrote its document (and
// with a cell unfinished) is still checked and reported from what finished;
// a run stopped before any cell is recognised by its marker: exit 4.
func TestPartialRunDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	o := cli(t, "matrix", "--quiet", "--strategies", "pg-tx", "--scenarios", "missing-key,payload-mismatch", "--out", dir)
	if o.code != exitPass {
		t.Fatalf("matrix: exit %d\n%s", o.code, o.stderr)
	}
	cells, _ := filepath.Glob(filepath.Join(dir, "cells", "*", "*", "*", "result.json"))
	if len(cells) != 2 {
		t.Fatalf("%d finished cells, want 2", len(cells))
	}
	for _, f := range []string{filepath.Join(dir, "results.json"), cells[0]} { // as if stopped mid-cell
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	c := cliEnv(t, nil, "check", dir)
	if c.code != exitPass || !strings.Contains(c.stderr, "re-checked 1 cells offline: 0 differ from the saved verdicts, 1 incomplete") {
		t.Errorf("check: exit %d\n%s", c.code, c.stderr)
	}
	r := cliEnv(t, nil, "report", dir, "--format", "table")
	if r.code != exitPass || !strings.Contains(r.stdout, "pg-tx") {
		t.Errorf("report of a partial run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	early := filepath.Join(t.TempDir(), "early")
	if err := os.MkdirAll(early, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(early, "idemchaos-run"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := cliEnv(t, nil, "check", early); c.code != exitInconclusive || !strings.Contains(c.stderr, "before any cell finished") {
		t.Errorf("check of a run stopped before any cell: exit %d\n%s", c.code, c.stderr)
	}
	if c := cliEnv(t, nil, "check", t.TempDir()); c.code != exitUsage || !strings.Contains(c.stderr, "holds no cells") {
		t.Errorf("check of an unrelated empty directory: exit %d\n%s", c.code, c.stderr)
	}
}
