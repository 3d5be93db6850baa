package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// benchDoc is the bench's JSON document.
type benchDoc struct {
	SchemaVersion int           `json:"schema_version"`
	Command       string        `json:"command"`
	Model         string        `json:"model"` // open (constant arrival rate) or closed (workers back to back)
	Rate          float64       `json:"rate,omitempty"`
	Concurrency   int           `json:"concurrency,omitempty"`
	Inflight      int           `json:"inflight,omitempty"`
	DurationMS    int64         `json:"duration_ms"`
	DupRatio      float64       `json:"dup_ratio"`
	CountLimit    int           `json:"count_limit"`
	TimeoutMS     int64         `json:"timeout_ms"`
	KeepAlive     bool          `json:"keepalive"`
	Accounts      int           `json:"accounts"`
	Seed          uint64        `json:"seed"`
	Profile       string        `json:"profile"`
	Started       time.Time     `json:"started"`
	TookMS        int64         `json:"took_ms"`
	LatencyFrom   string        `json:"latency_from"`
	Results       []benchResult `json:"results"`
}

// benchResult is one strategy's figures.
type benchResult struct {
	Strategy    string            `json:"strategy"`
	ReplayFrom  string            `json:"replay_from"` // where a replayed answer comes from
	Scheduled   int               `json:"scheduled"`
	Sent        int               `json:"sent"`
	Duplicates  int               `json:"duplicates"`
	Missed      int               `json:"missed"` // due but never sent: the target could not keep up
	Answered    int               `json:"answered"`
	OfferedRPS  float64           `json:"offered_rps"`
	AchievedRPS float64           `json:"achieved_rps"`
	ElapsedMS   int64             `json:"elapsed_ms"`
	MaxQueuedMS float64           `json:"max_queued_ms"` // longest wait for a free slot in the client
	Statuses    map[string]int    `json:"statuses"`
	Errors      map[string]int    `json:"errors"`
	Latency     []reports.Latency `json:"latency"` // kinds all, first, replay, conflict
	Anomalies   map[string]int    `json:"anomalies"`
	Overcharged int64             `json:"overcharged"`
	Hidden      int               `json:"hidden_attempts"`
}

func (b *bencher) header(started time.Time) benchDoc {
	c := b.o.load
	d := benchDoc{SchemaVersion: benchSchema, Command: "bench", Model: c.Model(), Rate: c.Rate, Concurrency: c.Workers,
		DurationMS: c.Duration.Milliseconds(), DupRatio: c.DupRatio, CountLimit: c.Count, TimeoutMS: b.o.timeout.Milliseconds(),
		KeepAlive: b.o.keepAlive, Accounts: c.Accounts, Seed: c.Seed, Profile: b.o.profile.Name, Started: started.UTC(),
		LatencyFrom: "intended send time", Results: []benchResult{}}
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
	r := benchResult{Strategy: name, ReplayFrom: replayFrom(name), Scheduled: rep.Scheduled, Sent: len(rep.Samples),
		Missed: rep.Missed, Answered: rep.Answered(), AchievedRPS: round(rep.Throughput(), 1),
		ElapsedMS: rep.Elapsed().Milliseconds(), Statuses: map[string]int{}, Errors: load.Errors(rep.Samples),
		Anomalies: v.Counts, Overcharged: v.Overcharged, Hidden: hidden}
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
func (r benchResult) latency(kind string) reports.Latency {
	for _, l := range r.Latency {
		if l.Kind == kind {
			return l
		}
	}
	return reports.Latency{Strategy: r.Strategy, Kind: kind}
}

func progressLine(r benchResult) string {
	all := r.latency(reports.KindAll)
	return fmt.Sprintf("bench %s: %d sent (%d duplicates, %d missed), %.1f/s, p50 %sms p99 %sms, errors %s, anomalies %s",
		r.Strategy, r.Sent, r.Duplicates, r.Missed, r.AchievedRPS, ms(all.P50), ms(all.P99), counts(r.Errors, load.ErrorClasses(), nil),
		counts(r.Anomalies, check.Names(), shortAnomaly))
}

// writeBench writes the JSON if asked, and the tables unless the JSON went
// to stdout.
func writeBench(jsonFile string, doc benchDoc, stdout io.Writer) error {
	if jsonFile != "" {
		err := writeFileOrStdout(jsonFile, stdout, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(doc)
		})
		if err != nil || jsonFile == "-" {
			return err
		}
	}
	return writeBenchTable(stdout, doc)
}

// writeBenchTable prints one row per strategy, then the latencies per kind
// of answer, then a legend.
func writeBenchTable(w io.Writer, doc benchDoc) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\toffered/s\tachieved/s\tsent\tdup\tmissed\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms\terrors\tanomalies")
	for _, r := range doc.Results {
		a := r.latency(reports.KindAll)
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Strategy, r.OfferedRPS, r.AchievedRPS,
			r.Sent, r.Duplicates, r.Missed, ms(a.P50), ms(a.P90), ms(a.P99), ms(a.P999), ms(a.Max),
			counts(r.Errors, load.ErrorClasses(), nil), counts(r.Anomalies, check.Names(), shortAnomaly))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tanswer\tfrom\tcount\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms")
	for _, r := range doc.Results {
		for _, k := range []string{reports.KindFirst, reports.KindReplay, reports.KindConflict} {
			if l := r.latency(k); l.Count > 0 {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Strategy, kindLabel(k), fromLabel(k, r),
					l.Count, ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s model; latency from each request's %s; answers: first = a 2xx that executed, "+
		"replay = a replayed 2xx, 409 = a duplicate in flight\nerrors: timeout, reset, 5xx, 4xx (other than 409), refused; "+
		"anomalies: dc double_charge, la lost_ack, rm replay_mismatch, me mismatch_executed, bal balance, "+
		"sc status_contract, sd store_desync, ce cached_error\n", doc.Model, doc.LatencyFrom)
	return err
}

func kindLabel(k string) string {
	if k == reports.KindConflict {
		return "409"
	}
	return k
}

func fromLabel(kind string, r benchResult) string {
	switch kind {
	case reports.KindFirst:
		return "charge"
	case reports.KindReplay:
		return r.ReplayFrom
	}
	return "claim"
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

var shortAnomalies = map[string]string{"double_charge": "dc", "lost_ack": "la", "replay_mismatch": "rm",
	"mismatch_executed": "me", "balance": "bal", "status_contract": "sc", "stuck_key": "sk", "store_desync": "sd",
	"cached_error": "ce"}

func shortAnomaly(n string) string {
	if s, ok := shortAnomalies[n]; ok {
		return s
	}
	return n
}

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
