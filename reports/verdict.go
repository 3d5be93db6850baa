package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// WriteVerdict writes, as text, what the HTML page puts first: the verdict
// and what it means and, when a cell needs a look, what to do first (the
// cell and its first finding, for a user's service the gravest anomaly and
// how to avoid it, the command that re-runs it). notRun follows the count
// of scenarios that could not run against a user's service: where to read
// why ("": nothing).
func WriteVerdict(w io.Writer, doc results.Document, v View, notRun string) error {
	cells := results.Cells(doc.Results)
	h := headlineOf(tallyOf(cells), nil, services(cells), subjectOf(cells), len(doc.Skipped))
	text := strings.Join(append([]string{v.paint(h.State.tone(), h.Title) + "."}, h.Lines...), " ")
	var b strings.Builder
	b.WriteString(wrapWords("", "  ", text, v.Width))
	if h.NotRun != "" {
		b.WriteString(wrapWords("", "  ", h.NotRun+notRun+".", v.Width))
	}
	if f := h.First; f != nil && !h.State.passed() {
		step := f.Lead
		if f.Code != "" {
			step += " " + f.Code + " in"
		}
		step += " " + f.Name
		if f.Rest != "" {
			step += ": " + f.Rest
		}
		b.WriteString(wrapWords("What to do first: ", "  ", step, v.Width))
		if f.Avoid != "" {
			b.WriteString(wrapWords("  How to avoid it: ", "    ", f.Avoid, v.Width))
		}
		if f.Repro != "" {
			b.WriteString("  Re-run it: " + f.Repro + "\n") // never wrapped: it is copied whole
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tone is how a state's words are emphasised on a terminal.
func (s hState) tone() tone {
	switch s.Key {
	case hPass.Key:
		return tonePass
	case hCaught.Key, hVaries.Key:
		return toneCaught
	case hUnsure.Key:
		return toneUnsure
	}
	return toneBroken
}

// passed reports whether the state is a pass: nothing to do first.
func (s hState) passed() bool { return s.Key == hPass.Key }

// WriteFindings writes the findings of rs anomaly by anomaly, in the order
// the HTML page asks to fix them (check.ByUrgency: money first, then held
// duplicates, then the contract), at most each of every anomaly, each
// under the scenario (and seed) that found it; it returns how many it
// left out, for the caller to say where they are.
func WriteFindings(w io.Writer, rs []scenarios.Result, v View, each int) (left int, err error) {
	by := map[check.Anomaly][]string{}
	seeds := len(results.Cells(rs)) < len(rs)
	for _, r := range rs {
		where := r.Scenario
		if !r.Service {
			where = r.Strategy + " / " + r.Scenario
		}
		if seeds {
			where += fmt.Sprintf(" seed %d", r.Seed)
		}
		for _, f := range r.Findings {
			by[f.Anomaly] = append(by[f.Anomaly], where+": "+f.Detail)
		}
	}
	var b strings.Builder
	for _, a := range urgencyOf(by) {
		fs := by[a]
		fmt.Fprintf(&b, "%s: %s\n", a, plural(len(fs), "finding"))
		for i, f := range fs {
			if i == each {
				fmt.Fprintf(&b, "  and %d more\n", len(fs)-each)
				left += len(fs) - each
				break
			}
			b.WriteString(wrapWords("  - ", "    ", f, v.Width))
		}
	}
	_, err = io.WriteString(w, b.String())
	return left, err
}

// urgencyOf orders the anomalies found: those the checker ranks by
// urgency first, in that order, then any other (a client's) by name.
func urgencyOf(by map[check.Anomaly][]string) []check.Anomaly {
	var out []check.Anomaly
	for _, a := range check.ByUrgency() {
		if len(by[a]) > 0 {
			out = append(out, a)
		}
	}
	var rest []check.Anomaly
	for a := range by {
		if !slices.Contains(out, a) {
			rest = append(rest, a)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}
