package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchWritesHTMLAndMarkdown runs a short real bench with every output,
// then renders its saved JSON again: the same pages, the same table.
func TestBenchWritesHTMLAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	strategies := []string{"none", "pg-tx", "redis-pg-guard"}
	o := cli(t, "bench", "--strategies", strings.Join(strategies, ","), "--duration", "400ms", "--rate", "50",
		"--json", file("bench.json"), "--html", file("bench.html"), "--markdown", file("bench.md"))
	if o.code != exitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	page, md := readFile(t, file("bench.html")), readFile(t, file("bench.md"))
	for _, st := range strategies {
		if !strings.Contains(page, "<h3>"+st+"</h3>") || !strings.Contains(md, "\n## "+st+"\n") {
			t.Errorf("%s missing from the HTML or the Markdown", st)
		}
	}
	if n := strings.Count(page, "<svg "); n != len(strategies) {
		t.Errorf("%d charts; want one per strategy", n)
	}
	if !strings.Contains(md, "machine: ") || !strings.Contains(page, "machine: ") {
		t.Error("no machine line")
	}
	for format, want := range map[string]string{"html": page, "markdown": md, "table": o.stdout} {
		r := cli(t, "report", file("bench.json"), "--format", format)
		if r.code != exitPass || r.stdout != want {
			t.Errorf("report --format %s of the saved JSON: exit %d, differs from what bench wrote: %s", format, r.code, r.stderr)
		}
	}
}

func TestReportBenchJSONAndJUnit(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bench.json")
	writeLegacyBench(t, file)
	o := cli(t, "report", file, "--format", "json")
	var doc map[string]any
	if o.code != exitPass || json.Unmarshal([]byte(o.stdout), &doc) != nil {
		t.Fatalf("exit %d, stdout not JSON:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if doc["kind"] != "bench" || doc["schema_version"] != 1.0 || doc["model"] != "closed" {
		t.Errorf("re-written document: %v", doc)
	}
	o = cli(t, "report", file, "--format", "markdown")
	if o.code != exitPass || !strings.Contains(o.stdout, "## pg-tx\n") || !strings.Contains(o.stdout, "closed model, 2 senders") {
		t.Errorf("markdown of a legacy bench document: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = cli(t, "report", file, "--format", "junit")
	if o.code != exitUsage || strings.Count(o.stderr, "\n") != 1 || !strings.Contains(o.stderr, "junit is for matrix results") {
		t.Errorf("junit of a bench document: exit %d, stderr %q; want exit 2 and one line", o.code, o.stderr)
	}
}

// writeLegacyBench saves a bench document as bench --json wrote it before
// the kind marker.
func writeLegacyBench(t *testing.T, path string) {
	t.Helper()
	doc := `{"schema_version": 1, "command": "bench", "model": "closed", "concurrency": 2, "duration_ms": 300,
	"dup_ratio": 0.1, "count_limit": 1000000, "timeout_ms": 2000, "keepalive": false, "accounts": 1000, "seed": 1,
	"profile": "ietf", "started": "2025-11-29T19:00:00Z", "took_ms": 900, "latency_from": "actual send time",
	"results": [{"strategy": "pg-tx", "replay_from": "postgres", "scheduled": 0, "sent": 120, "duplicates": 11,
	"missed": 0, "answered": 120, "offered_rps": 400, "achieved_rps": 398.7, "elapsed_ms": 301, "max_queued_ms": 0,
	"statuses": {"200": 11, "201": 109}, "errors": {}, "anomalies": {"double_charge": 0},
	"latency": [{"strategy": "pg-tx", "kind": "all", "count": 120, "p50_ms": 4.1, "p90_ms": 6, "p99_ms": 9.5, "p999_ms": 11, "max_ms": 11},
	{"strategy": "pg-tx", "kind": "first", "count": 109, "p50_ms": 4.3, "p90_ms": 6.1, "p99_ms": 9.5, "p999_ms": 11, "max_ms": 11},
	{"strategy": "pg-tx", "kind": "replay", "count": 11, "p50_ms": 2.2, "p90_ms": 2.9, "p99_ms": 3.1, "p999_ms": 3.1, "max_ms": 3.1}],
	"overcharged": 0, "hidden_attempts": 0}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBenchReportBadFlags(t *testing.T) {
	dir := t.TempDir()
	cases := [][]string{
		{"--html", filepath.Join(dir, "missing", "b.html")},
		{"--markdown", filepath.Join(dir, "missing", "b.md")},
		{"--html", "-", "--markdown", "-"},
		{"--json", "-", "--html", "-"},
		{"--json", filepath.Join(dir, "b"), "--html", filepath.Join(dir, "b")},
		{"--serve", "127.0.0.1:8080", "--html", filepath.Join(dir, "b.html")},
		{"--html"},
	}
	for _, args := range cases {
		o := cliEnv(t, []string{"IDEMCHAOS_REDIS_URL=redis://127.0.0.1:1/0", "IDEMCHAOS_POSTGRES_URL=postgres://x@127.0.0.1:1/x"},
			append([]string{"bench"}, args...)...)
		lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
		if o.code != exitUsage || len(lines) != 1 || !strings.HasPrefix(lines[0], "idemchaos: ") {
			t.Errorf("bench %v: exit %d, stderr %q; want exit 2 and one line", args, o.code, o.stderr)
		}
	}
}

func TestReportBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	future := filepath.Join(dir, "future.json")
	if err := os.WriteFile(future, []byte(`{"kind": "bench", "schema_version": 2, "results": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(dir, "bench.json")
	writeLegacyBench(t, legacy)
	for _, args := range [][]string{
		{"report", future, "--format", "html"},
		{"report", legacy, "--format", "xml"},
		{"report", legacy, "--format", "html", "-o", filepath.Join(dir, "missing", "b.html")},
	} {
		o := cli(t, args...)
		if o.code != exitUsage || strings.Count(o.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, o.code, o.stderr)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
