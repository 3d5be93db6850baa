package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartialRunDirectory: a run stopped before it wrote its document (a
// cell unfinished, another never started) is still checked and reported
// from what finished, and check says it was interrupted, how many cells
// never started, and exits 4: it proved nothing about them. A run stopped
// before any cell is recognised by its marker: exit 4.
func TestPartialRunDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	o := cli(t, "matrix", "--quiet", "--strategies", "pg-tx", "--scenarios", "missing-key,payload-mismatch,dropped-response", "--out", dir)
	if o.code != exitPass {
		t.Fatalf("matrix: exit %d\n%s", o.code, o.stderr)
	}
	c := cliEnv(t, nil, "check", dir)
	if c.code != exitPass || strings.Contains(c.stderr, "interrupted") || firstLine(c.stdout) != firstLine(o.stdout) {
		t.Fatalf("check of the whole run: exit %d, not the matrix's order\n%s%s", c.code, c.stdout, c.stderr)
	}
	cells, _ := filepath.Glob(filepath.Join(dir, "cells", "*", "*", "*", "result.json"))
	if len(cells) != 3 {
		t.Fatalf("%d finished cells, want 3", len(cells))
	}
	if err := os.Rename(filepath.Join(dir, "results.json"), filepath.Join(dir, "saved.json")); err != nil {
		t.Fatal(err)
	}
	// without its document, the catalog's order, not the directories'
	c = cliEnv(t, nil, "check", dir)
	if want := "strategy  dropped-response    payload-mismatch    missing-key"; c.code != exitInconclusive || firstLine(c.stdout) != want {
		t.Errorf("check without the document: exit %d, first line %q; want 4 and %q\n%s", c.code, firstLine(c.stdout), want, c.stderr)
	}
	// as if stopped while the second cell ran, before the third started
	for _, f := range []string{cells[0], filepath.Dir(cells[1])} {
		if err := os.RemoveAll(f); err != nil {
			t.Fatal(err)
		}
	}
	c = cliEnv(t, nil, "check", dir)
	if c.code != exitInconclusive || !strings.Contains(c.stderr, "re-checked 1 cells offline: 0 differ from the saved verdicts, 1 incomplete") ||
		!strings.Contains(c.stderr, "the run was interrupted: 1 of 3 cells finished, 1 stopped mid-cell, 1 never started") {
		t.Errorf("check of an interrupted run: exit %d; want %d, saying so\n%s", c.code, exitInconclusive, c.stderr)
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
