package reports

import (
	"github.com/idemchaos/idemchaos/results"
	"io"
	"slices"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

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
	cells := results.Cells(rs)
	service := services(cells)
	grid := newGrid(cells)
	compact := !v.Wide && !v.fits(grid.width(false))
	if _, err := io.WriteString(w, grid.render(v, compact)); err != nil {
		return err
	}
	writeLegend(w, v, compact, service, multiSeed(cells), measured(cells), clientCells(cells), varying(cells))
	writeSummary(w, v, rs, service)
	writeAdapted(w, v, cells)
	writeEvidence(w, v, cells)
	return nil
}

// measured reports whether a cell counts what its seeds exercised.
func measured(cells []results.Cell) bool {
	for _, c := range cells {
		if c.Coverage().Of > 0 {
			return true
		}
	}
	return false
}

func axes(cells []results.Cell) (strategies, scens []string) {
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
