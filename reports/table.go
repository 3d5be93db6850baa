package reports

import (
	"io"
	"slices"

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

// Coverage is how many of the cell's seeds exercised what its scenario is
// about.
func (c Cell) Coverage() scenarios.Coverage { return scenarios.CoverageOf(c.Results) }

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

// WriteTable renders the strategy x scenario matrix as v lays it out, its
// legend, the summary and, for each cell that did not pass as declared, its
// first piece of evidence and a repro line.
func WriteTable(w io.Writer, rs []scenarios.Result, v View) error {
	cells := Cells(rs)
	service := services(cells)
	grid := newGrid(cells)
	compact := !v.Wide && !v.fits(grid.width(false))
	if _, err := io.WriteString(w, grid.render(v, compact)); err != nil {
		return err
	}
	writeLegend(w, v, compact, service, multiSeed(cells), measured(cells))
	writeSummary(w, v, rs, service)
	writeAdapted(w, v, cells)
	writeEvidence(w, v, cells)
	return nil
}

// measured reports whether a cell counts what its seeds exercised.
func measured(cells []Cell) bool {
	for _, c := range cells {
		if c.Coverage().Of > 0 {
			return true
		}
	}
	return false
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

// Money formats minor units as major.minor.
func Money(minor int64) string { return check.Money(minor) }
