package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// WriteBenchTable prints one row per strategy, then the latencies per kind
// of answer, then a legend.
func WriteBenchTable(w io.Writer, doc results.Bench) error {
	if err := benchRows(w, doc.Results); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := benchKindRows(w, doc.Results); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n"+wrapWords("", "  ", fmt.Sprintf("%s model; latency from each request's %s; answers: first = a 2xx "+
		"that executed, replay = a replayed 2xx, 409 = a duplicate in flight", doc.Model, doc.LatencyFrom), legendWidth)+
		wrapWords("errors: ", "        ", "timeout, reset, 5xx, 4xx (other than 409), refused", legendWidth)+
		wrapList("anomalies: ", anomalyNames(), legendWidth))
	return err
}

func benchRows(w io.Writer, rs []results.BenchResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\toffered/s\tachieved/s\tsent\tdup\tmissed\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms\terrors\tanomalies")
	for _, r := range rs {
		a := r.LatencyOf(results.KindAll)
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", oneLine(r.Strategy), r.OfferedRPS,
			r.AchievedRPS, r.Sent, r.Duplicates, r.Missed, benchMS(a.P50), benchMS(a.P90), benchMS(a.P99),
			benchMS(a.P999), benchMS(a.Max), oneLine(errorText(r)), oneLine(anomalyText(r)))
	}
	return tw.Flush()
}

func benchKindRows(w io.Writer, rs []results.BenchResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tanswer\tfrom\tcount\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms")
	for _, r := range rs {
		for _, k := range benchKinds[1:] {
			if l := r.LatencyOf(k); l.Count > 0 {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", oneLine(r.Strategy), kindLabel(k),
					oneLine(fromLabel(k, r)), l.Count, benchMS(l.P50), benchMS(l.P90), benchMS(l.P99), benchMS(l.P999), benchMS(l.Max))
			}
		}
	}
	return tw.Flush()
}

// anomalyLegend spells out the short anomaly names, in the checker's order.
func anomalyLegend() string { return strings.Join(anomalyNames(), ", ") }

// anomalyNames are the anomalies, each after its short name ("dc
// double_charge").
func anomalyNames() []string {
	var parts []string
	for _, n := range check.Names() {
		parts = append(parts, check.Anomaly(n).Short()+" "+n)
	}
	return parts
}
