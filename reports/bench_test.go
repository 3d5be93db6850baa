package reports_test

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
)

func TestBenchGoldenFiles(t *testing.T) {
	for name, f := range benchRenderers {
		t.Run(name, func(t *testing.T) { golden(t, name, renderBench(t, f, benchFixture())) })
	}
}

// TestBenchRenderersAreDeterministic renders twice, and once more from the
// document as saved to and read back from JSON: byte-identical every time.
func TestBenchRenderersAreDeterministic(t *testing.T) {
	var saved bytes.Buffer
	if err := results.WriteBenchJSON(&saved, benchFixture()); err != nil {
		t.Fatal(err)
	}
	loaded, err := results.ReadBench(&saved)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range benchRenderers {
		first, second, fromFile := renderBench(t, f, benchFixture()), renderBench(t, f, benchFixture()), renderBench(t, f, loaded)
		if !bytes.Equal(first, second) || !bytes.Equal(first, fromFile) {
			t.Errorf("%s: output differs between renderings of the same document", name)
		}
	}
}

// TestBenchJSONShape: the kind marker, the version, and the field names
// that `bench --json` has always written.
func TestBenchJSONShape(t *testing.T) {
	b := renderBench(t, results.WriteBenchJSON, benchFixture())
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["kind"] != "bench" || raw["schema_version"] != 1.0 || raw["command"] != "bench" {
		t.Fatalf("header: kind %v, schema_version %v, command %v", raw["kind"], raw["schema_version"], raw["command"])
	}
	for _, k := range []string{"model", "rate", "inflight", "duration_ms", "dup_ratio", "count_limit", "timeout_ms", "keepalive",
		"accounts", "seed", "profile", "started", "took_ms", "latency_from", "machine", "results"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("document lacks %q", k)
		}
	}
	res := raw["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"strategy", "replay_from", "scheduled", "sent", "duplicates", "missed", "answered", "offered_rps",
		"achieved_rps", "elapsed_ms", "max_queued_ms", "statuses", "errors", "latency", "anomalies", "overcharged", "hidden_attempts"} {
		if _, ok := res[k]; !ok {
			t.Errorf("results[0] lacks %q", k)
		}
	}
	if !results.IsBench(b) {
		t.Error("IsBench does not recognise a bench document")
	}
}

func TestReadBenchTellsDocumentsApart(t *testing.T) {
	legacy := `{"schema_version": 1, "command": "bench", "model": "closed", "concurrency": 2, "results": []}`
	doc, err := results.ReadBench(strings.NewReader(legacy))
	if err != nil || !results.IsBench([]byte(legacy)) || doc.Kind != results.BenchKind || doc.Concurrency != 2 {
		t.Fatalf("a bench document written before the kind marker: %v, %+v", err, doc.BenchHeader)
	}
	var matrix bytes.Buffer
	if err := results.WriteJSON(&matrix, fixture()); err != nil {
		t.Fatal(err)
	}
	if results.IsBench(matrix.Bytes()) || results.IsBench([]byte("not json")) {
		t.Error("a matrix document or garbage taken for a bench document")
	}
	if _, err := results.ReadBench(bytes.NewReader(matrix.Bytes())); err == nil {
		t.Error("ReadBench accepted a matrix document")
	}
	if _, err := results.ReadBench(strings.NewReader(`{"kind": "bench", "schema_version": 99}`)); err == nil {
		t.Error("a future schema version was accepted")
	}
}

func TestBenchMarkdownContent(t *testing.T) {
	out := string(renderBench(t, reports.WriteBenchMarkdown, benchFixture()))
	if first, _, _ := strings.Cut(out, "\n"); first != "# idemchaos bench: 4 strategies, 1 with anomalies under load" {
		t.Errorf("title line %q", first)
	}
	for _, want := range []string{
		"open model at 200 req/s · at most 512 in flight · 10s per strategy · 10 % duplicates",
		"machine: linux/amd64 · 2 CPUs · GOMAXPROCS 2 · go1.26.0 · started 2025-11-29 19:00:00 UTC",
		"| none | 200.0 | 199.6 | 2.53 | 3.67 | 54.8 | 88.1 | 91.2 | - | dc=203 |",
		"| redis-pg-guard | 200.0 | 198.2 | 3.12 | 15.9 | 171 | 1240 | 1250 | timeout=3 5xx=1 | - |",
		"## pg-tx\n",
		"| replay | postgres | 196 | 1.71 | 2.40 | 6.02 | 9.10 | 9.10 |",
		"| 409 | claim | 14 | 12.2 | 40.3 | 61.0 | 61.0 | 61.0 |",
		"| replay | memory | 0 | – | – | – | – | – |",
		"- anomalies under load: `double_charge` 203; **2537.50 overcharged**",
		"- errors: `timeout` 3, `5xx` 1",
		"- hidden re-sends caught by the server's log: 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchMarkdownEscapesData(t *testing.T) {
	doc := benchFixture()
	doc.Results[0].Strategy = "a|b <script>"
	doc.Results[0].Errors = map[string]int{"x|`y`": 1}
	out := string(renderBench(t, reports.WriteBenchMarkdown, doc))
	row := regexp.MustCompile(`(?m)^\| a.*$`).FindString(out)
	if cells := regexp.MustCompile(`(^|[^\\])\|`).FindAllString(row, -1); len(cells) != 11 {
		t.Errorf("row %q has %d unescaped pipes; want 11", row, len(cells))
	}
	if strings.Contains(out, "<script>") || !strings.Contains(out, `## a\|b \<script\>`) {
		t.Errorf("strategy name not escaped:\n%s", out)
	}
}

func TestBenchHTMLIsSelfContained(t *testing.T) {
	out := string(renderBench(t, reports.WriteBenchHTML, benchFixture()))
	if m := external.FindAllString(out, -1); len(m) > 0 {
		t.Errorf("external references or scripts in the page: %q", m)
	}
	if n := strings.Count(out, `<article class="card`); n != 4 {
		t.Errorf("%d strategy cards; want 4", n)
	}
	if n := strings.Count(out, "<svg "); n != 4 {
		t.Errorf("%d charts; want one per strategy", n)
	}
	for _, want := range []string{`<article class="card flawed">`, `<article class="card erred">`, `<article class="card">`,
		`<g class="k-conflict">`, `<rect class="k-replay"`, "pg-tx, replay answers (196): p99 6.02 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// TestBenchHTMLEscapesData puts markup into the strategy, an error class,
// an anomaly name and the replay store: all of it must render as text.
func TestBenchHTMLEscapesData(t *testing.T) {
	doc := benchFixture()
	xss := `<script>alert(1)</script>`
	doc.Results[0].Strategy = xss
	doc.Results[0].Latency[0].Strategy = xss
	doc.Results[1].Errors = map[string]int{`"><img src=x onerror=alert(2)>`: 1}
	doc.Results[2].Anomalies[`<b>bold</b>`] = 1
	doc.Results[2].ReplayFrom = `</title><script>alert(3)</script>`
	out := string(renderBench(t, reports.WriteBenchHTML, doc))
	for _, raw := range []string{"<script", `<img`, `<b>`} {
		if strings.Contains(out, raw) {
			t.Errorf("data %q reached the page as markup", raw)
		}
	}
	if !strings.Contains(out, "<h3>"+html.EscapeString(xss)+"</h3>") {
		t.Error("the strategy is not shown as text")
	}
	stripped := regexp.MustCompile(`&lt;/?script&gt;|&lt;img src=x|&#34;&gt;&lt;img src=x`).ReplaceAllString(out, "")
	if m := external.FindAllString(stripped, -1); len(m) > 0 {
		t.Errorf("beyond the escaped data, external references: %q", m)
	}
}

// TestBenchChartSharedScale: the same latency sits at the same height in
// every strategy's chart, and a slower one higher up.
func TestBenchChartSharedScale(t *testing.T) {
	doc := benchFixture()
	doc.Results = doc.Results[:2]
	doc.Results[0].Latency = []results.Latency{lat("none", "all", 10, 2, 2, 2, 2, 2)}
	doc.Results[1].Latency = []results.Latency{lat("memory", "all", 10, 2, 2, 20, 20, 200)}
	out := string(renderBench(t, reports.WriteBenchHTML, doc))
	ys := regexp.MustCompile(`<circle cx="[0-9.]+" cy="([0-9.]+)"`).FindAllStringSubmatch(out, -1)
	if len(ys) != 10 {
		t.Fatalf("%d points; want 10", len(ys))
	}
	if ys[0][1] != ys[5][1] {
		t.Errorf("2 ms at y %s in one chart and %s in the other", ys[0][1], ys[5][1])
	}
	if y := func(i int) float64 { f, _ := strconv.ParseFloat(ys[i][1], 64); return f }; y(9) >= y(4) {
		t.Errorf("200 ms at y %s, not above 2 ms at y %s", ys[9][1], ys[4][1])
	}
}

func TestBenchHTMLWithoutAnswers(t *testing.T) {
	doc := benchFixture()
	doc.Results = []results.BenchResult{{Strategy: "none"}}
	out := string(renderBench(t, reports.WriteBenchHTML, doc))
	if strings.Contains(out, "<svg") || !strings.Contains(out, "<h3>none</h3>") || !strings.HasSuffix(strings.TrimSpace(out), "</html>") {
		t.Errorf("a bench without answers:\n%s", out)
	}
}

func TestBenchProgress(t *testing.T) {
	r := results.BenchResult{Strategy: "pg-tx", Sent: 10, Duplicates: 1, AchievedRPS: 9.5,
		Errors: map[string]int{"timeout": 2}, Anomalies: map[string]int{"double_charge": 3, "zz": 1, "lost_ack": 0, "balance": 2},
		Latency: []results.Latency{{Kind: results.KindAll, Count: 10, P50: 2.5, P99: 120}}}
	got := reports.BenchProgress(r)
	want := "bench pg-tx: 10 sent (1 duplicates, 0 missed), 9.5/s, p50 2.50ms p99 120ms, errors timeout=2, anomalies dc=3 bal=2 zz=1"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
