package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/load"
)

func progressLine(r reports.BenchResult) string {
	all := r.LatencyOf(reports.KindAll)
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
func writeBench(f benchFiles, rep reports.Bench, stdout io.Writer) error {
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
