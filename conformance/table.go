package conformance

import (
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
)

// RowSpec is one row asked for: a target under a profile.
type RowSpec struct {
	Target  Target
	Profile string
}

// Name is the row's name in results.
func (r RowSpec) Name() string { return r.Target.Name + "." + r.Profile }

// Table is a run folded into cells: one per row and scenario.
type Table struct {
	Rows      []RowSpec
	Scenarios []string
	Seeds     int
	cells     map[[2]string]Cell
}

// NewTable folds results and skips into the table of rows x scens.
func NewTable(rows []RowSpec, scens []string, seeds int, rs []scenarios.Result, skipped []results.Skip) Table {
	t := Table{Rows: rows, Scenarios: scens, Seeds: seeds, cells: map[[2]string]Cell{}}
	by := map[[2]string][]scenarios.Result{}
	for _, r := range rs {
		k := [2]string{r.Strategy, r.Scenario}
		by[k] = append(by[k], r)
	}
	for _, row := range rows {
		for _, sc := range scens {
			k := [2]string{row.Name(), sc}
			if res, ok := by[k]; ok {
				t.cells[k] = Judge(row.Name(), sc, res)
			}
		}
	}
	for _, s := range skipped {
		k := [2]string{s.Strategy, s.Scenario}
		if _, ran := t.cells[k]; !ran {
			t.cells[k] = Cell{Row: s.Strategy, Scenario: s.Scenario, Class: Skipped, Reason: s.Reason}
		}
	}
	return t
}

// Cell is the cell of row and scenario (ok false: neither run nor
// skipped, the scenario was not asked for).
func (t Table) Cell(row RowSpec, scenario string) (Cell, bool) {
	c, ok := t.cells[[2]string{row.Name(), scenario}]
	return c, ok
}

// Unexplained lists the anomalies of the table no Finding explains, as
// "row / scenario: anomaly", and the inconclusive cells nothing in
// Inconclusives explains ("row / scenario: inconclusive").
func (t Table) Unexplained() []string {
	var out []string
	for _, row := range t.Rows {
		for _, sc := range t.Scenarios {
			c, ok := t.Cell(row, sc)
			if !ok {
				continue
			}
			for _, a := range c.Anomalies() {
				if Explain(row.Target.Name, sc, a) == nil {
					out = append(out, row.Name()+" / "+sc+": "+string(a))
				}
			}
			if c.Class == Inconclusive && ExplainInconclusive(row.Target.Name, row.Profile, sc) == nil {
				out = append(out, row.Name()+" / "+sc+": inconclusive")
			}
		}
	}
	return out
}
