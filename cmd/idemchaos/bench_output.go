package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// benchDoc is the bench's JSON document, reports.Bench, with results that
// carry this command's helpers.
type benchDoc struct {
	reports.BenchHeader
	Results []benchResult `json:"results"`
}

// benchResult is one strategy's figures.
type benchResult struct{ reports.BenchResult }

// report is the document as the reports package renders it.
func (d benchDoc) report() reports.Bench {
	out := reports.Bench{BenchHeader: d.BenchHeader, Results: make([]reports.BenchResult, len(d.Results))}
	for i, r := range d.Results {
		out.Results[i] = r.BenchResult
	}
	return out
}

// thisMachine describes where the bench runs.
func thisMachine() reports.Machine {
	return reports.Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version()}
}

func (b *bencher) header(started time.Time) benchDoc {
	c := b.o.load
	d := benchDoc{BenchHeader: reports.BenchHeader{Kind: reports.BenchKind, SchemaVersion: reports.BenchSchemaVersion,
		Tool: "idemchaos", Command: "bench", Model: c.Model(), Rate: c.Rate, Concurrency: c.Workers,
		DurationMS: c.Duration.Milliseconds(), DupRatio: c.DupRatio, CountLimit: c.Count, TimeoutMS: b.o.timeout.Milliseconds(),
		KeepAlive: b.o.keepAlive, Accounts: c.Accounts, Seed: c.Seed, Profile: b.o.profile.Name, Started: started.UTC(),
		LatencyFrom: "intended send time", Machine: thisMachine()}, Results: []benchResult{}}
	if d.CountLimit == 0 {
		d.CountLimit = load.MaxCount
	}
	if c.Model() == load.Open {
		d.Inflight = c.Inflight
	} else {
		d.LatencyFrom = "actual send time"
	}
	return d
}

// summarize turns a run into one strategy's figures. Latencies count from
// each request's intended send time (Sample.Timed).
func summarize(name string, c load.Config, rep load.Report, v check.Report, hidden int) benchResult {
	r := benchResult{reports.BenchResult{Strategy: name, ReplayFrom: replayFrom(name), Scheduled: rep.Scheduled,
		Sent: len(rep.Samples), Missed: rep.Missed, Answered: rep.Answered(), AchievedRPS: round(rep.Throughput(), 1),
		ElapsedMS: rep.Elapsed().Milliseconds(), Statuses: map[string]int{}, Errors: load.Errors(rep.Samples),
		Anomalies: anomalyCounts(v.Counts), Overcharged: v.Overcharged, Hidden: hidden}}
	r.OfferedRPS = c.Rate
	if c.Model() == load.Closed && c.Duration > 0 {
		r.OfferedRPS = round(float64(r.Sent)/c.Duration.Seconds(), 1)
	}
	timed := make([]history.Attempt, len(rep.Samples))
	var queued time.Duration
	for i, s := range rep.Samples {
		timed[i], queued = s.Timed(), max(queued, s.Queued())
		if s.Request.Dup {
			r.Duplicates++
		}
		if s.Attempt.Status != 0 {
			r.Statuses[strconv.Itoa(s.Attempt.Status)]++
		}
	}
	r.MaxQueuedMS = round(float64(queued)/float64(time.Millisecond), 3)
	lat := reports.NewLatencies()
	lat.Add(name, timed)
	r.Latency = lat.Summary()
	return r
}

// replayFrom names the store a strategy replays a completed key from.
func replayFrom(name string) string {
	info, _ := strategy.Lookup(name)
	switch {
	case name == "none":
		return "-"
	case name == "memory":
		return "memory"
	case name == "redis-pg-guard":
		return "redis, else postgres"
	case info.Redis:
		return "redis"
	}
	return "postgres"
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// latency returns the figures of one kind (zero Count if none).
func (r benchResult) latency(kind string) reports.Latency { return r.LatencyOf(kind) }

func progressLine(r benchResult) string {
	all := r.latency(reports.KindAll)
	return fmt.Sprintf("bench %s: %d sent (%d duplicates, %d missed), %.1f/s, p50 %sms p99 %sms, errors %s, anomalies %s",
		r.Strategy, r.Sent, r.Duplicates, r.Missed, r.AchievedRPS, ms(all.P50), ms(all.P99), counts(r.Errors, load.ErrorClasses(), nil),
		counts(r.Anomalies, check.Names(), shortAnomaly))
}

// benchFiles are where a bench writes its figures; "-" is stdout, for one
// of them at most.
type benchFiles struct{ json, html, markdown string }

// toStdout reports whether one of the files is stdout.
func (f benchFiles) toStdout() bool { return f.json == "-" || f.html == "-" || f.markdown == "-" }

// writers pair each output flag with its file and renderer.
func (f benchFiles) writers() []benchWriter {
	return []benchWriter{{"--json", f.json, reports.WriteBenchJSON}, {"--html", f.html, reports.WriteBenchHTML},
		{"--markdown", f.markdown, reports.WriteBenchMarkdown}}
}

type benchWriter struct {
	flag, path string
	render     func(io.Writer, reports.Bench) error
}

// writeBench writes every file asked for, and the tables unless a file went
// to stdout; a file that cannot be written does not stop the others.
func writeBench(f benchFiles, doc benchDoc, stdout io.Writer) error {
	rep := doc.report()
	var first error
	for _, w := range f.writers() {
		if w.path == "" {
			continue
		}
		if err := writeBenchFile(w, rep, stdout); err != nil && first == nil {
			first = err
		}
	}
	if f.toStdout() {
		return first
	}
	if err := reports.WriteBenchTable(stdout, rep); err != nil && first == nil {
		first = err
	}
	return first
}

// writeBenchFile renders the document into one file, or stdout.
func writeBenchFile(w benchWriter, rep reports.Bench, stdout io.Writer) error {
	if w.path == "-" {
		return w.render(stdout, rep)
	}
	f, err := os.Create(w.path)
	if err != nil {
		return usageErrorf("%s: %v", w.flag, err)
	}
	if err := w.render(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	return f.Close()
}

// ms formats milliseconds with three significant figures or so.
func ms(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func shortAnomaly(n string) string { return check.Anomaly(n).Short() }

// counts renders the non-zero counts as "a=1 b=2" in the order given (then
// any other name, sorted); "-" when all are zero.
func counts(m map[string]int, order []string, label func(string) string) string {
	if label == nil {
		label = func(s string) string { return s }
	}
	names := append([]string(nil), order...)
	var extra []string
	for k := range m {
		if !contains(order, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	var parts []string
	for _, n := range append(names, extra...) {
		if m[n] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", label(n), m[n]))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// anomalyCounts keys the checker's counts by name, as the bench document does.
func anomalyCounts(m map[check.Anomaly]int) map[string]int {
	out := make(map[string]int, len(m))
	for a, n := range m {
		out[string(a)] = n
	}
	return out
}
