package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Cell aggregates the seeds of one (strategy, scenario).
type Cell struct {
	Strategy, Scenario string
	Results            []scenarios.Result
}

// Cells groups results by (strategy, scenario), in first-seen order.
func Cells(rs []scenarios.Result) []Cell {
	var out []Cell
	at := map[[2]string]int{}
	for _, r := range rs {
		k := [2]string{r.Strategy, r.Scenario}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Cell{Strategy: r.Strategy, Scenario: r.Scenario})
		}
		out[i].Results = append(out[i].Results, r)
	}
	return out
}

// Verdict is the cell's overall verdict: fail if any seed failed, else
// inconclusive if any was, else pass.
func (c Cell) Verdict() scenarios.Verdict {
	v := scenarios.Pass
	for _, r := range c.Results {
		switch {
		case r.Verdict == scenarios.Fail:
			return scenarios.Fail
		case r.Verdict == scenarios.Inconclusive:
			v = scenarios.Inconclusive
		}
	}
	return v
}

// AsExpected reports whether every seed matched the catalog's declaration.
func (c Cell) AsExpected() bool {
	for _, r := range c.Results {
		if !r.AsExpected {
			return false
		}
	}
	return true
}

// Anomalies sums anomaly counts over the seeds.
func (c Cell) Anomalies() map[check.Anomaly]int {
	sum := map[check.Anomaly]int{}
	for _, r := range c.Results {
		for k, v := range r.Anomalies {
			sum[k] += v
		}
	}
	return sum
}

// Overcharged sums the money overcharged over the seeds.
func (c Cell) Overcharged() int64 {
	var m int64
	for _, r := range c.Results {
		m += r.Overcharged
	}
	return m
}

// text renders one cell of the matrix: verdict, failing seeds, anomaly counts
// and whether that is what the catalog declares.
func (c Cell) text() string {
	failed := 0
	for _, r := range c.Results {
		if r.Verdict != scenarios.Pass {
			failed++
		}
	}
	s := strings.ToUpper(string(c.Verdict()))
	if failed > 0 {
		s += fmt.Sprintf(" %d/%d", failed, len(c.Results))
	}
	for _, name := range sortedKeys(c.Anomalies()) {
		s += fmt.Sprintf(" %s=%d", name.Short(), c.Anomalies()[name])
	}
	switch {
	case c.service():
		return s
	case c.AsExpected():
		return s + " ok"
	}
	return s + " UNEXPECTED"
}

// sortedKeys lists the anomalies with a count above zero, by name.
func sortedKeys(m map[check.Anomaly]int) []check.Anomaly {
	var out []check.Anomaly
	for k, v := range m {
		if v > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// WriteTable renders the strategy x scenario matrix, its legend, the summary
// and, for each failing cell, its first piece of evidence and a repro line.
func WriteTable(w io.Writer, rs []scenarios.Result) error {
	cells := Cells(rs)
	strategies, scens := axes(cells)
	at := map[[2]string]Cell{}
	for _, c := range cells {
		at[[2]string{c.Strategy, c.Scenario}] = c
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "strategy\t%s\n", strings.Join(scens, "\t"))
	for _, st := range strategies {
		row := []string{st}
		for _, sc := range scens {
			c, ok := at[[2]string{st, sc}]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, c.text())
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeLegend(w, services(cells))
	writeSummary(w, rs, services(cells))
	writeAdapted(w, cells)
	writeEvidence(w, cells)
	return nil
}

func axes(cells []Cell) (strategies, scens []string) {
	seenSt, seenSc := map[string]bool{}, map[string]bool{}
	for _, c := range cells {
		if !seenSt[c.Strategy] {
			seenSt[c.Strategy] = true
			strategies = append(strategies, c.Strategy)
		}
		if !seenSc[c.Scenario] {
			seenSc[c.Scenario] = true
			scens = append(scens, c.Scenario)
		}
	}
	return strategies, scens
}

func writeLegend(w io.Writer, service bool) {
	if service {
		fmt.Fprintln(w, "\ncell: verdict, seeds that did not pass / seeds run, anomaly counts summed over seeds")
	} else {
		fmt.Fprintln(w, "\ncell: verdict, seeds that did not pass / seeds run, anomaly counts summed over seeds;")
		fmt.Fprintln(w, "      ok = as the catalog declares for this strategy, UNEXPECTED = not")
	}
	var entries []string
	for _, a := range check.Anomalies() {
		entries = append(entries, a.Short()+" "+string(a))
	}
	fmt.Fprint(w, wrapList("anomalies: ", entries, legendWidth))
}

func writeSummary(w io.Writer, rs []scenarios.Result, service bool) {
	s := Summarize(rs)
	if service {
		fmt.Fprintf(w, "\n%d runs: %d pass, %d fail, %d inconclusive; %s overcharged in all\n",
			s.Cells, s.Pass, s.Fail, s.Inconclusive, Money(s.Overcharged))
		return
	}
	fmt.Fprintf(w, "\n%d runs: %d pass, %d fail, %d inconclusive; %d not as declared; %s overcharged in all\n",
		s.Cells, s.Pass, s.Fail, s.Inconclusive, s.Unexpected, Money(s.Overcharged))
}

// writeEvidence prints, per failing or unexpected cell, one finding and the
// command that re-runs its first failing seed.
func writeEvidence(w io.Writer, cells []Cell) {
	for _, c := range cells {
		r, ok := firstNotPassing(c)
		if !ok {
			continue
		}
		fmt.Fprintf(w, "\n%s / %s (seed %d): %s", c.Strategy, c.Scenario, r.Seed, r.Verdict)
		if r.Overcharged > 0 {
			fmt.Fprintf(w, ", %s overcharged", Money(r.Overcharged))
		}
		fmt.Fprintln(w)
		if len(r.Findings) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", r.Findings[0].Anomaly, r.Findings[0].Detail)
		}
		for _, a := range r.Assumptions {
			fmt.Fprintf(w, "  assumption: %s\n", a)
		}
		fmt.Fprintf(w, "  repro: %s\n", r.Repro)
	}
}

func firstNotPassing(c Cell) (scenarios.Result, bool) {
	for _, r := range c.Results {
		if r.Verdict != scenarios.Pass || !r.AsExpected {
			return r, true
		}
	}
	return scenarios.Result{}, false
}

// Money formats minor units as major.minor.
func Money(minor int64) string { return check.Money(minor) }

// legendWidth is where the legend's lines break.
const legendWidth = 100

// wrapList writes entries after head, comma-separated, breaking lines
// before width with the continuation indented under the first entry.
func wrapList(head string, entries []string, width int) string {
	var b strings.Builder
	line := head
	indent := strings.Repeat(" ", len(head))
	for i, e := range entries {
		if i < len(entries)-1 {
			e += ","
		}
		if len(line) > len(head) && len(line)+1+len(e) > width {
			b.WriteString(line + "\n")
			line = indent
		} else if len(line) > len(head) {
			line += " "
		}
		line += e
	}
	return b.String() + line + "\n"
}
