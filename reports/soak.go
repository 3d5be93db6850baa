package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// soakListed bounds the cells the summary lists per (strategy, scenario,
// class); the JSON document and the run directory hold them all.
const soakListed = 5

// Soak is a finished (or stopped) soak, as its summary tells it.
type Soak struct {
	Root    uint64 // the root seed the round seeds came from
	Rounds  int
	Stopped string        // why no more rounds started
	Took    time.Duration // since the soak started
	Profile string
	Tally   *results.Tally
	Failed  bool // the soak stopped early on an error: the summary is partial
}

// WriteSoak prints the summary of a soak: one row per strategy, every cell
// that did not pass with the command that re-runs it, and the verdict with
// its exit code.
func WriteSoak(w io.Writer, k Soak) error {
	n := k.Tally.Total
	fmt.Fprintf(w, "soak: root seed %d; %s (%s), %d cells in %s; profile %s\n\n", k.Root, roundsText(k.Rounds),
		k.Stopped, n.Cells, SoakDuration(k.Took), k.Profile)
	if err := writeSoakTable(w, k.Tally); err != nil {
		return err
	}
	writeSoakCoverage(w, k.Tally.Results)
	writeListed(w, k.Tally.Sorted())
	fmt.Fprintln(w, "\n"+k.verdictLine())
	return nil
}

// writeSoakTable prints one row per strategy.
func writeSoakTable(w io.Writer, t *results.Tally) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\trounds\tcells\tpass\tfail\tinconclusive\tcaught\tunexpected\tmissed\tanomalies (cells showing each)")
	for _, name := range t.Strategies {
		st := t.Per[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", name, st.Rounds, st.Cells, st.Pass, st.Fail,
			st.Inconclusive, st.Caught, st.Unexpected, st.Missed, anomalyCells(st.Anomalies))
	}
	return tw.Flush()
}

// writeSoakCoverage prints, per scenario, how many rounds of each
// strategy's cell exercised what the scenario is about: how often the
// dangerous interleaving really happened. A cell that never did is
// flagged: its passes prove nothing.
func writeSoakCoverage(w io.Writer, rs []scenarios.Result) {
	byScen := map[string][]string{}
	var order []string
	what := map[string]string{}
	for _, c := range results.Cells(rs) {
		cov := c.Coverage()
		if cov.Of == 0 {
			continue
		}
		if _, ok := byScen[c.Scenario]; !ok {
			order = append(order, c.Scenario)
		}
		entry := fmt.Sprintf("%s %d/%d", c.Strategy, cov.Exercised, cov.Of)
		if cov.Exercised == 0 {
			entry += " (never: inconclusive)"
		}
		byScen[c.Scenario], what[c.Scenario] = append(byScen[c.Scenario], entry), cov.What
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "\nexercised (rounds whose run did what the scenario is about):")
	for _, sc := range order {
		fmt.Fprintf(w, "  %s (%s): %s\n", sc, what[sc], strings.Join(byScen[sc], ", "))
	}
}

// anomalyCells is "double_charge 4, store_desync 2", or "-".
func anomalyCells(m map[check.Anomaly]int) string {
	var parts []string
	for _, name := range sortedNames(m) {
		parts = append(parts, fmt.Sprintf("%s %d", name, m[name]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// writeListed prints every cell that did not pass, with the command that
// re-runs it alone, unexpected ones first; at most soakListed per
// (strategy, scenario, class).
func writeListed(w io.Writer, results []scenarios.Result) {
	header := false
	for _, want := range []scenarios.Class{scenarios.Unexpected, scenarios.Missed, scenarios.Caught, scenarios.Unproven} {
		var order [][2]string
		shown := map[[2]string]int{}
		for _, r := range results {
			if r.Class() != want {
				continue
			}
			if !header {
				fmt.Fprintln(w, "\ncells that did not pass (each command re-runs that cell alone):")
				header = true
			}
			key := [2]string{r.Strategy, r.Scenario}
			if shown[key] == 0 {
				order = append(order, key)
			}
			if shown[key]++; shown[key] <= soakListed {
				fmt.Fprintf(w, "  %-12s %s   # %s%s\n", want, r.Repro, AnomalyText(r.Anomalies), declaredText(r))
			}
		}
		for _, key := range order {
			if more := shown[key] - soakListed; more > 0 {
				fmt.Fprintf(w, "  %-12s ... %d more seeds of %s / %s (all in --json or --out)\n", want, more, key[0], key[1])
			}
		}
	}
}

func roundsText(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}

// declaredText is what the catalog declares for the cell and, for an
// inconclusive one, the self-check that failed.
func declaredText(r scenarios.Result) string {
	s := "; declared: " + check.Join(r.Expected)
	if len(r.Expected) == 0 {
		s = "; declared: must pass"
	}
	if len(r.Assumptions) > 0 {
		s += "; unproven: " + r.Assumptions[0]
	}
	return s
}

// verdictLine sums the soak up and names its exit code.
func (k Soak) verdictLine() string {
	n := k.Tally.Total
	switch {
	case k.Failed:
		return fmt.Sprintf("verdict: stopped early (%s) after %d cells: the summary is partial", k.Stopped, n.Cells)
	case n.Cells == 0:
		return "verdict: no cell ran"
	case n.Unexpected+n.Missed > 0:
		return fmt.Sprintf("verdict: %d unexpected and %d missed cells (not as the catalog declares): exit 1", n.Unexpected, n.Missed)
	case n.Inconclusive > 0:
		return fmt.Sprintf("verdict: no unexpected anomaly, but %d inconclusive cells: exit 4", n.Inconclusive)
	}
	return fmt.Sprintf("verdict: no unexpected anomaly; %d declared flaws caught: exit 0", n.Caught)
}

// AnomalyText lists the non-zero anomaly counts, sorted by name ("no
// anomaly" when there is none).
func AnomalyText(m map[check.Anomaly]int) string {
	var parts []string
	for _, name := range sortedNames(m) {
		if m[name] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", name, m[name]))
		}
	}
	if len(parts) == 0 {
		return "no anomaly"
	}
	return strings.Join(parts, " ")
}

func sortedNames(m map[check.Anomaly]int) []check.Anomaly {
	return slices.Sorted(maps.Keys(m))
}

// Alert is the line that reports a cell not as declared the moment it
// finishes: a long soak should not hide it until the end.
func Alert(r scenarios.Result) string {
	return fmt.Sprintf("%s %s / %s seed %d: %s, %s%s; repro: %s", strings.ToUpper(r.Class().String()), r.Strategy,
		r.Scenario, r.Seed, r.Verdict, AnomalyText(r.Anomalies), declaredText(r), r.Repro)
}

// SoakDuration rounds a soak's durations for people: to the second past a
// minute, else to a tenth of a second.
func SoakDuration(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
