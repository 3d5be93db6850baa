package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSavedRunChecksAndReports: a run saved with --out is re-checked offline
// with the same verdict, and renders in every format.
func TestSavedRunChecksAndReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	live := cli(t, "matrix", "--strategies", "none,pg-tx", "--scenarios", "dropped-response", "--seeds", "1", "--out", dir)
	if live.code != exitPass {
		t.Fatalf("matrix: exit %d\n%s", live.code, live.stderr)
	}
	checked := cli(t, "check", dir)
	if checked.code != exitPass || !strings.Contains(checked.stderr, "re-checked 2 cells offline: 0 differ") {
		t.Fatalf("check: exit %d\n%s\n%s", checked.code, checked.stdout, checked.stderr)
	}
	if lastTable(live.stdout) != lastTable(checked.stdout) {
		t.Fatalf("the offline table differs from the live one:\n%s\n---\n%s", live.stdout, checked.stdout)
	}
	junit := cli(t, "report", dir, "--format", "junit")
	var suites struct {
		Tests int `xml:"tests,attr"`
	}
	if junit.code != 0 || xml.Unmarshal([]byte(junit.stdout), &suites) != nil || suites.Tests != 2 {
		t.Fatalf("junit: exit %d, %d tests\n%s", junit.code, suites.Tests, junit.stdout)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if o := cli(t, "report", dir, "--format", "html", "-o", html); o.code != 0 {
		t.Fatalf("html: exit %d %s", o.code, o.stderr)
	}
	if b, _ := os.ReadFile(html); !strings.Contains(string(b), "<html") {
		t.Fatal("no HTML written")
	}
	if o := cli(t, "report", dir, "--format", "markdown"); o.code != 0 || !strings.Contains(o.stdout, "|") {
		t.Fatalf("markdown: exit %d\n%s", o.code, o.stdout)
	}
}

func TestCheckSkipsIncompleteCells(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cli(t, "matrix", "--strategies", "none,pg-tx", "--scenarios", "missing-key", "--seeds", "1", "--out", dir)
	cells, _ := filepath.Glob(filepath.Join(dir, "cells", "pg-tx", "*", "*", "result.json"))
	if len(cells) != 1 {
		t.Fatalf("result files %v", cells)
	}
	os.Remove(cells[0]) // as if the run had been killed during this cell
	o := cli(t, "check", dir)
	if o.code != exitInconclusive || !strings.Contains(o.stderr, "1 incomplete") || !strings.Contains(o.stderr, "the run was interrupted") {
		t.Fatalf("exit %d; want %d (an interrupted run)\n%s", o.code, exitInconclusive, o.stderr)
	}
}

func TestBadRunDirectoriesExit2(t *testing.T) {
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o644)
	cases := [][]string{
		{"check"},
		{"check", filepath.Join(full, "missing")},
		{"check", full},
		{"report", full, "--format", "table"},
		{"report", full, "--format", "pdf"},
		{"run", "--strategy", "pg-tx", "--scenario", "missing-key", "--out", full},
	}
	for _, args := range cases {
		if o := cli(t, args...); o.code != exitUsage || strings.Count(strings.TrimSpace(o.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, o.code, o.stderr)
		}
	}
}

// lastTable is the matrix table at the top of a report.
func lastTable(s string) string {
	head, _, _ := strings.Cut(s, "\ncells:")
	return head
}
