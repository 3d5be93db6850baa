package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/load"
)

// benchKinds are the kinds of answer a bench report shows, in order.
var benchKinds = []string{results.KindAll, results.KindFirst, results.KindReplay, results.KindConflict}

// kindLabel names a kind of answer in a report: a conflict is its status.
func kindLabel(k string) string {
	if k == results.KindConflict {
		return "409"
	}
	return k
}

// fromLabel says what answered a kind of answer for one strategy.
func fromLabel(kind string, r results.BenchResult) string {
	switch kind {
	case results.KindAll:
		return "-"
	case results.KindFirst:
		return "charge"
	case results.KindReplay:
		return r.ReplayFrom
	}
	return "claim"
}

// benchMS formats milliseconds with three significant figures or so.
func benchMS(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// benchCounts renders the non-zero counts as "a=1 b=2" in the order given
// (then any other name, sorted); "-" when all are zero.
func benchCounts(m map[string]int, order []string, label func(string) string) string {
	var parts []string
	for _, n := range countOrder(m, order) {
		parts = append(parts, fmt.Sprintf("%s=%d", label(n), m[n]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// countOrder lists the names with a non-zero count: those of order first,
// in its order, then the others, sorted.
func countOrder(m map[string]int, order []string) []string {
	known := map[string]bool{}
	var out []string
	for _, n := range order {
		known[n] = true
		if m[n] > 0 {
			out = append(out, n)
		}
	}
	var extra []string
	for n, v := range m {
		if !known[n] && v > 0 {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

func errorText(r results.BenchResult) string {
	return benchCounts(r.Errors, load.ErrorClasses(), identity)
}

func anomalyText(r results.BenchResult) string {
	return benchCounts(r.Anomalies, check.Names(), func(n string) string { return check.Anomaly(n).Short() })
}

// anomalyTotal sums a result's anomaly counts.
func anomalyTotal(r results.BenchResult) int {
	n := 0
	for _, v := range r.Anomalies {
		n += v
	}
	return n
}

// benchSettings states what was run, one item each.
func benchSettings(h results.BenchHeader) []string {
	parts := []string{loadModel(h)}
	if h.Inflight > 0 {
		parts = append(parts, fmt.Sprintf("at most %d in flight", h.Inflight))
	}
	parts = append(parts, durationText(h.DurationMS)+" per strategy",
		strconv.FormatFloat(h.DupRatio*100, 'f', -1, 64)+" % duplicates")
	if h.CountLimit > 0 && h.CountLimit < load.MaxCount {
		parts = append(parts, fmt.Sprintf("at most %d requests", h.CountLimit))
	}
	parts = append(parts, "timeout "+durationText(h.TimeoutMS), connText(h.KeepAlive),
		plural(h.Accounts, "account"), fmt.Sprintf("seed %d", h.Seed))
	if h.Profile != "" {
		parts = append(parts, "profile "+h.Profile)
	}
	return parts
}

func loadModel(h results.BenchHeader) string {
	if h.Model == load.Closed {
		return fmt.Sprintf("closed model, %d senders back to back", h.Concurrency)
	}
	return fmt.Sprintf("%s model at %s req/s", h.Model, strconv.FormatFloat(h.Rate, 'f', -1, 64))
}

func connText(keepAlive bool) string {
	if keepAlive {
		return "keep-alive connections"
	}
	return "a new connection per request"
}

func durationText(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

// benchWhen states when the bench started and how long it took.
func benchWhen(h results.BenchHeader) []string {
	var parts []string
	if !h.Started.IsZero() {
		parts = append(parts, "started "+h.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if h.TookMS > 0 {
		parts = append(parts, "took "+seconds(h.TookMS)+" s")
	}
	return parts
}

// machineText describes the machine, or "" if the document does not say.
func machineText(m results.Machine) string {
	if m == (results.Machine{}) {
		return ""
	}
	return fmt.Sprintf("%s/%s · %s · GOMAXPROCS %d · %s", m.OS, m.Arch, plural(m.CPUs, "CPU"), m.GOMAXPROCS, m.GoVersion)
}

// latencyNote says what a latency counts.
func latencyNote(h results.BenchHeader) string {
	from := h.LatencyFrom
	if from == "" {
		from = "send time"
	}
	return "latency in ms from each request's " + from + " (HDR histograms, 3 significant figures)"
}

// benchTitle sums up the bench in a few words.
func benchTitle(doc results.Bench) string {
	flawed := 0
	for _, r := range doc.Results {
		if anomalyTotal(r) > 0 {
			flawed++
		}
	}
	s := fmt.Sprintf("idemchaos bench: %d strategies", len(doc.Results))
	if len(doc.Results) == 1 {
		s = "idemchaos bench: 1 strategy"
	}
	if flawed > 0 {
		s += fmt.Sprintf(", %d with anomalies under load", flawed)
	}
	return s
}

// BenchProgress is one strategy's figures in one line, as a bench reports
// each strategy the moment it is done.
func BenchProgress(r results.BenchResult) string {
	all := r.LatencyOf(results.KindAll)
	return fmt.Sprintf("bench %s: %d sent (%d duplicates, %d missed), %.1f/s, p50 %sms p99 %sms, errors %s, anomalies %s",
		r.Strategy, r.Sent, r.Duplicates, r.Missed, r.AchievedRPS, benchMS(all.P50), benchMS(all.P99), errorText(r), anomalyText(r))
}
