package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/load"
)

// WriteBenchMarkdown renders a bench document as GitHub-flavoured Markdown:
// the settings and machine, one summary row per strategy, then per strategy
// its throughput, latency per kind of answer, errors and anomalies. Text
// from the data is escaped.
func WriteBenchMarkdown(w io.Writer, doc results.Bench) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(benchTitle(doc)))
	mdBenchRun(&b, doc.BenchHeader)
	mdBenchSummary(&b, doc.Results)
	for _, r := range doc.Results {
		mdBenchResult(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdBenchRun writes the settings line, the machine line and what a latency
// counts.
func mdBenchRun(b *strings.Builder, h results.BenchHeader) {
	settings := benchSettings(h)
	for i, s := range settings {
		settings[i] = mdEscape(s)
	}
	fmt.Fprintf(b, "%s\n", strings.Join(settings, " · "))
	machine := benchWhen(h)
	if m := machineText(h.Machine); m != "" {
		machine = append([]string{"machine: " + m}, machine...)
	}
	if len(machine) > 0 {
		fmt.Fprintf(b, "\n%s\n", mdEscape(strings.Join(machine, " · ")))
	}
	fmt.Fprintf(b, "\n%s.\n\n", mdEscape(upperFirst(latencyNote(h))))
}

// mdBenchSummary writes one row per strategy, to compare at a glance.
func mdBenchSummary(b *strings.Builder, rs []results.BenchResult) {
	b.WriteString("| strategy | offered/s | achieved/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors | anomalies |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, r := range rs {
		a := r.LatencyOf(results.KindAll)
		fmt.Fprintf(b, "| %s | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(r.Strategy), r.OfferedRPS,
			r.AchievedRPS, benchMS(a.P50), benchMS(a.P90), benchMS(a.P99), benchMS(a.P999), benchMS(a.Max),
			mdEscape(errorText(r)), mdEscape(anomalyText(r)))
	}
	fmt.Fprintf(b, "\nAnomalies: %s.\n", mdEscape(anomalyLegend()))
}

// mdBenchResult writes one strategy's section.
func mdBenchResult(b *strings.Builder, r results.BenchResult) {
	fmt.Fprintf(b, "\n## %s\n\n%s\n\n", mdEscape(r.Strategy), mdEscape(throughputText(r)))
	b.WriteString("| answers | from | count | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range benchKinds {
		l := r.LatencyOf(k)
		fmt.Fprintf(b, "| %s | %s | %d |", kindLabel(k), mdEscape(fromLabel(k, r)), l.Count)
		for _, v := range percentiles(l) {
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, line := range mdOutcomes(r) {
		b.WriteString("- " + line + "\n")
	}
}

// percentiles are p50, p90, p99, p99.9 and max as text; dashes if no answer
// of the kind came back.
func percentiles(l results.Latency) []string {
	if l.Count == 0 {
		return []string{"–", "–", "–", "–", "–"}
	}
	return []string{benchMS(l.P50), benchMS(l.P90), benchMS(l.P99), benchMS(l.P999), benchMS(l.Max)}
}

// mdOutcomes lists the errors, anomalies and statuses of one strategy.
func mdOutcomes(r results.BenchResult) []string {
	lines := []string{"errors: " + namedCounts(r.Errors, load.ErrorClasses(), mdCode),
		"anomalies under load: " + namedCounts(r.Anomalies, check.Names(), mdCode)}
	if r.Overcharged > 0 {
		lines[1] += "; **" + Money(r.Overcharged) + " overcharged**"
	}
	lines = append(lines, "statuses: "+namedCounts(r.Statuses, nil, mdCode))
	if r.Hidden > 0 {
		lines = append(lines, fmt.Sprintf("hidden re-sends caught by the server's log: %d", r.Hidden))
	}
	return lines
}

// namedCounts renders non-zero counts as "name 3, other 1", names through
// code; "none" when all are zero.
func namedCounts(m map[string]int, order []string, code func(string) string) string {
	var parts []string
	for _, n := range countOrder(m, order) {
		parts = append(parts, fmt.Sprintf("%s %d", code(n), m[n]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// throughputText says what was sent and answered, and how fast.
func throughputText(r results.BenchResult) string {
	s := fmt.Sprintf("%d scheduled, %d sent (%d duplicates), %d missed, %d answered in %s; offered %.1f/s, achieved %.1f/s",
		r.Scheduled, r.Sent, r.Duplicates, r.Missed, r.Answered, durationText(r.ElapsedMS), r.OfferedRPS, r.AchievedRPS)
	if r.MaxQueuedMS > 0 {
		s += "; longest wait for a client slot " + benchMS(r.MaxQueuedMS) + " ms"
	}
	return s
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
