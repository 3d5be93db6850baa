package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// maxFindings bounds the evidence printed per run; the JSON keeps it all.
const maxFindings = 10

// WriteDetail renders one run as v lays it out: verdict, anomaly counts,
// evidence, repro.
func WriteDetail(w io.Writer, r scenarios.Result, v View) error {
	tone := markOf(results.Cell{Results: []scenarios.Result{r}}).tone()
	fmt.Fprintf(w, "%s under %s, seed %d, profile %s: %s\n", r.Strategy, r.Scenario, r.Seed, r.Profile,
		v.paint(tone, strings.ToUpper(string(r.Verdict))))
	fmt.Fprintf(w, "  %d requests, %s, %d ms\n", r.Requests, r.FaultsSaid(), r.DurationMS)
	names := sortedKeys(r.Anomalies)
	width := 18 // the server's anomalies fit; a client's may be longer
	for _, name := range names {
		width = max(width, len(name))
	}
	for _, name := range names {
		fmt.Fprintf(w, "  %-*s %d\n", width, name, r.Anomalies[name])
	}
	if r.Overcharged > 0 {
		fmt.Fprintf(w, "  overcharged        %s\n", check.Amount(r.Overcharged, r.Currency))
	}
	if m := declinedCharged(r.Findings); m > 0 {
		fmt.Fprintf(w, "  declined, charged  %s\n", Money(m))
	}
	for i, f := range r.Findings {
		if i == maxFindings {
			fmt.Fprintf(w, "  ... %d more findings %s\n", len(r.Findings)-maxFindings, v.kept())
			break
		}
		fmt.Fprint(w, wrapWords("  - "+string(f.Anomaly)+": ", "      ", f.Detail, v.Width))
	}
	for i, f := range r.Deviations {
		if i == maxFindings {
			fmt.Fprintf(w, "  ... %d more deviations in the JSON output\n", len(r.Deviations)-maxFindings)
			break
		}
		fmt.Fprintf(w, "  ~ deviation the profile documents (%s): %s\n", f.Anomaly, f.Detail)
	}
	for _, a := range r.Assumptions {
		fmt.Fprint(w, wrapWords("  assumption not met: ", "    ", a, v.Width))
	}
	for _, a := range r.Adapted {
		fmt.Fprint(w, wrapWords("  adapted: ", "    ", a, v.Width))
	}
	if len(r.Expected) > 0 {
		word := expectWord(r.AsExpected)
		fmt.Fprintf(w, "  declared for this strategy: fails with %s (%s)\n", check.Join(r.Expected), v.paint(tone, word))
	}
	if r.Verdict != scenarios.Pass {
		fmt.Fprintf(w, "  repro: %s\n", r.Repro)
	}
	return nil
}

// declinedCharged is the money charged for keys that were declined.
func declinedCharged(fs []check.Finding) int64 {
	var m int64
	for _, f := range fs {
		if f.Anomaly == check.RefusalNotReplayed {
			m += f.Money
		}
	}
	return m
}

func expectWord(ok bool) string {
	if ok {
		return "as declared"
	}
	return "NOT as declared"
}

// kept says where the findings a view leaves out are.
func (v View) kept() string {
	if v.Kept == "" {
		return "not shown (--out DIR or --json FILE keeps them all)"
	}
	return v.Kept
}
