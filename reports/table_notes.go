package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// legendWidth is where the legend's lines break when the view sets no width.
const legendWidth = 100

// legendLimit is the width the legend wraps at.
func (v View) legendLimit() int {
	if v.Width > 0 {
		return v.Width
	}
	return legendWidth
}

// varying reports whether some cell is marked as one whose anomalies show
// on some seeds only.
func varying(cells []results.Cell) bool {
	for _, c := range cells {
		if markOf(c).varies {
			return true
		}
	}
	return false
}

// multiSeed reports whether some cell ran more than one seed.
func multiSeed(cells []results.Cell) bool {
	for _, c := range cells {
		if len(c.Results) > 1 {
			return true
		}
	}
	return false
}

// clientCells reports whether every cell is a run of client mode.
func clientCells(cells []results.Cell) bool {
	for _, c := range cells {
		if !scenarios.IsClientScenario(c.Scenario) {
			return false
		}
	}
	return len(cells) > 0
}

// writeLegend says what the cells' words mean, in the layout shown, and
// names the anomalies behind their short names (the client checker's, for
// runs of client mode).
func writeLegend(w io.Writer, v View, compact, service, seeds, exercised, clients, varies bool) {
	var entries []string
	switch {
	case clients:
		entries = []string{"pass = the client kept its half of the contract",
			"!!FAIL nk=1 = your client broke these rules (counts summed over the seeds)",
			"inconclusive = nothing proved (a self-check failed)"}
	case service && compact:
		entries = []string{"pass = every invariant held", "!!DC = your service broke these invariants",
			"inconcl = inconclusive: nothing proved (a self-check failed)"}
	case service:
		entries = []string{"pass = every invariant held", "!!FAIL dc=2 = your service broke these invariants (counts summed over the seeds)",
			"inconclusive = nothing proved (a self-check failed)"}
	case compact:
		entries = []string{"pass = passed, as declared", "dc rm = failed as declared: the flaw caught, with these anomalies",
			"!!DC = NOT as declared: anomalies the catalog does not declare for the strategy",
			"!!MISSED = NOT as declared: a declared flaw not caught",
			"inconcl = inconclusive: nothing proved (a self-check failed)"}
	default:
		entries = []string{"pass = passed, as declared",
			"caught dc=50 = failed as declared: the flaw caught, anomaly counts summed over the seeds",
			"!!FAIL dc=3 = NOT as declared: anomalies the catalog does not declare for the strategy",
			"!!MISSED = NOT as declared: a declared flaw not caught",
			"inconclusive = nothing proved (a self-check failed)"}
	}
	if varies && compact {
		entries = append(entries, "sc~ = as declared: anomalies the catalog says show on some seeds only")
	} else if varies {
		entries = append(entries, "varies sc=3 = as declared: anomalies the catalog says show on some seeds only")
	}
	if seeds {
		entries = append(entries, "3/20 = on 3 of the 20 seeds run")
	}
	switch {
	case exercised && compact:
		entries = append(entries, "e3/20 = 3 of the 20 seeds exercised what the scenario is about (none: inconclusive)")
	case exercised:
		entries = append(entries, "exercised 3/20 = 3 of the 20 seeds did what the scenario is about (none: inconclusive)")
	}
	fmt.Fprint(w, "\n"+wrapWords("cells: ", "       ", strings.Join(entries, "; "), v.legendLimit()))
	list := check.Anomalies()
	if clients {
		list = check.ClientAnomalies()
	}
	var names []string
	for _, a := range list {
		names = append(names, a.Short()+" "+string(a))
	}
	fmt.Fprint(w, wrapList("anomalies: ", names, v.legendLimit()))
}

// currencyOf is the currency of the results' amounts when they share one.
func currencyOf(rs []scenarios.Result) string {
	cur := ""
	for i, r := range rs {
		if i > 0 && r.Currency != cur {
			return ""
		}
		cur = r.Currency
	}
	return cur
}

func writeSummary(w io.Writer, v View, rs []scenarios.Result, service bool) {
	n := map[scenarios.Class]int{}
	for _, r := range rs {
		n[r.Class()]++
	}
	s := results.Summarize(rs)
	money := check.Amount(s.Overcharged, currencyOf(rs)) + " overcharged in all"
	counts := fmt.Sprintf("%d runs: %d pass, %d fail, %d inconclusive", s.Cells, s.Pass, s.Fail, s.Inconclusive)
	if service {
		fmt.Fprint(w, "\n"+wrapWords("", "  ", counts+"; "+money, v.Width))
		return
	}
	bad := n[scenarios.Unexpected] + n[scenarios.Missed]
	verdict := v.paint(tonePass, "0 not as declared")
	if bad > 0 {
		verdict = v.paint(toneBroken, fmt.Sprintf("%d NOT as declared", bad))
	}
	fmt.Fprint(w, "\n"+wrapWords("", "  ", fmt.Sprintf("%s; %d caught as declared, %s; %s", counts, n[scenarios.Caught], verdict, money), v.Width))
}

// writeAdapted says, under the table, how scenarios were changed to run
// against the service.
func writeAdapted(w io.Writer, v View, cells []results.Cell) {
	as := adaptations(cells)
	if len(as) == 0 {
		return
	}
	fmt.Fprintln(w, "\nhow the scenarios ran against your service:")
	for _, a := range as {
		for _, n := range a.Notes {
			fmt.Fprint(w, wrapWords("  "+a.Scenario+": ", "    ", n, v.Width))
		}
	}
}

// writeEvidence prints, per cell that did not pass as declared, the first
// seed that makes it what its mark says, one finding, and the command that
// re-runs it; with an HTML report, only per cell to look at (not as
// declared, inconclusive). The repro line is never wrapped: it is copied
// whole.
func writeEvidence(w io.Writer, v View, cells []results.Cell) {
	for _, c := range cells {
		m := markOf(c)
		r, ok := m.first()
		if !ok || v.Report != "" && m.class == scenarios.Caught {
			continue
		}
		head := fmt.Sprintf("%s / %s (seed %d): %s", c.Strategy, c.Scenario, r.Seed, v.paint(markOf(results.Cell{Results: []scenarios.Result{r}}).tone(), resultState(r)))
		if r.Overcharged > 0 {
			head += ", " + check.Amount(r.Overcharged, r.Currency) + " overcharged"
		}
		fmt.Fprint(w, "\n"+wrapWords("", "    ", head, v.Width))
		if len(r.Findings) > 0 {
			f := r.Findings[0]
			fmt.Fprint(w, wrapWords("  "+string(f.Anomaly)+": ", "    ", f.Detail, v.Width))
		}
		for _, a := range r.Assumptions {
			fmt.Fprint(w, wrapWords("  assumption: ", "    ", a, v.Width))
		}
		fmt.Fprintf(w, "  repro: %s\n", r.Repro)
	}
}

// resultState is a seed's verdict read against its declaration, in words;
// a user's service has none to be read against.
func resultState(r scenarios.Result) string {
	if r.Service {
		if r.Verdict == scenarios.Fail {
			return "!! fail"
		}
		return string(r.Verdict)
	}
	switch r.Class() {
	case scenarios.Caught:
		if len(r.Expected) == 0 {
			return "fail, as declared: it shows on some seeds only"
		}
		return "fail, caught as declared"
	case scenarios.Unexpected:
		return "!! fail, NOT as declared"
	case scenarios.Missed:
		return "!! pass, NOT as declared: the declared " + check.Join(r.Expected) + " was not caught"
	}
	return string(r.Verdict)
}

// first is the first seed of the cell in the class its mark has (a missed
// seed counts as not as declared too); none for a cell that passed.
func (m mark) first() (scenarios.Result, bool) {
	if m.class == scenarios.Passed {
		return scenarios.Result{}, false
	}
	for _, r := range m.cell.Results {
		if k := r.Class(); k == m.class || m.class == scenarios.Unexpected && k == scenarios.Missed {
			return r, true
		}
	}
	return scenarios.Result{}, false
}
