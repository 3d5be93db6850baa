package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExploreHTML: explore --html writes the exploration's page and keeps
// the terminal's text; several cases share a page, a section each; --html
// - writes the page alone to stdout; outputs
// that could not be written are refused before anything runs.
func TestExploreHTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "explore.html")
	o := cli(t, "explore", "--strategy", "pg-tx", "--quiet", "--html", page)
	html := readFile(t, page)
	if o.code != exitPass || !strings.Contains(o.stdout, "A's steps: 1 send") ||
		!strings.Contains(html, "pg-tx, duplicate (2 requests, every order): ") || !strings.Contains(html, `<svg class="grid"`) ||
		!strings.Contains(html, "Every state is safe") {
		t.Fatalf("explore pg-tx --html: exit %d\n%s\n%s\n%s", o.code, o.stdout, o.stderr, html)
	}
	o = cli(t, "explore", "--strategy", "pg-tx", "--quiet", "--html", "-", "--json", filepath.Join(dir, "explore.json"))
	if o.code != exitPass || !strings.HasPrefix(o.stdout, "<!DOCTYPE html>") || strings.Contains(o.stdout, "A's steps: 1 send") ||
		!strings.Contains(readFile(t, filepath.Join(dir, "explore.json")), `"target": "pg-tx"`) {
		t.Fatalf("explore pg-tx --html -: exit %d\n%.300s\n%s", o.code, o.stdout, o.stderr)
	}
	two := filepath.Join(dir, "two.html")
	o = cli(t, "explore", "--strategy", "pg-tx", "--quiet", "--case", "duplicate,mismatch", "--html", two)
	html = readFile(t, two)
	if o.code != exitPass || strings.Count(html, `<svg class="grid"`) != 2 || !strings.Contains(html, `<section class="case" id="case-2-case">`) ||
		!strings.Contains(html, "pg-tx: every one of ") {
		t.Fatalf("explore pg-tx --case duplicate,mismatch --html: exit %d\n%s\n%.2000s", o.code, o.stderr, html)
	}
	for _, bad := range [][]string{
		{"--html", "-", "--json", "-"},
		{"--html", page, "--json", page},
		{"--html", filepath.Join(dir, "missing", "explore.html")},
		{"--html"},
	} {
		args := append([]string{"explore", "--strategy", "pg-tx", "--quiet"}, bad...)
		if o := cli(t, args...); o.code != exitUsage || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("idemchaos %s: exit %d, want %d with one line\n%s", strings.Join(args, " "), o.code, exitUsage, o.stderr)
		}
	}
}
