package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Limits on the evidence the CI-facing renderers print; the JSON keeps it all.
const (
	maxSeedsShown    = 5 // failing seeds detailed per cell
	maxFindingsShown = 3 // findings detailed per seed
)

// status is how a cell reads against the catalog's declaration.
type status int

const (
	stPass         status = iota // passed, as declared
	stCaught                     // failed as declared: a flawed strategy caught
	stInconclusive               // an assumption failed on some seed; nothing else unexpected
	stUnexpected                 // some decisive seed is not what the catalog declares
)

// classify reads a cell against its declaration. An unexpected decisive seed
// outweighs an inconclusive one, as the matrix exit code does.
func classify(c results.Cell) status {
	unexpected, inconclusive := false, false
	for _, r := range c.Results {
		class := r.Class()
		unexpected = unexpected || class.NotAsDeclared()
		inconclusive = inconclusive || class == scenarios.Unproven
	}
	switch {
	case unexpected:
		return stUnexpected
	case inconclusive:
		return stInconclusive
	case c.Verdict() == scenarios.Fail:
		return stCaught
	}
	return stPass
}

// services reports whether every cell is of a user's service.
func services(cells []results.Cell) bool {
	for _, c := range cells {
		if !c.Service() {
			return false
		}
	}
	return len(cells) > 0
}

// notCaught reports whether a cell declared to fail passed on every seed.
func notCaught(c results.Cell) bool {
	return classify(c) == stUnexpected && c.Verdict() == scenarios.Pass
}

// outcome sums up a document: a mark and a phrase, worst first.
func outcome(cells []results.Cell) (mark, text string) {
	unexpected, inconclusive, caught := 0, 0, 0
	for _, c := range cells {
		switch classify(c) {
		case stUnexpected:
			unexpected++
		case stInconclusive:
			inconclusive++
		case stCaught:
			caught++
		}
	}
	unit := subjectOf(cells).unit
	switch {
	case unexpected > 0 && services(cells):
		return "❌", plural(unexpected, unit) + " failed"
	case unexpected > 0:
		return "❌", plural(unexpected, "cell") + " not as declared"
	case inconclusive > 0:
		return "⚠️", plural(inconclusive, "cell") + " inconclusive"
	case services(cells):
		return "✅", "every " + unit + " passed"
	}
	return "✅", fmt.Sprintf("every cell as declared (%s caught)", plural(caught, "flawed cell"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// shown lists the seeds of a cell worth detailing: those that did not pass or
// are not as declared, at most maxSeedsShown, and how many more there are.
func shown(c results.Cell) (rs []scenarios.Result, more int) {
	for _, r := range c.Results {
		if r.Verdict == scenarios.Pass && r.AsExpected {
			continue
		}
		if len(rs) == maxSeedsShown {
			more++
			continue
		}
		rs = append(rs, r)
	}
	return rs, more
}

// firstFindings returns at most maxFindingsShown findings and how many are left.
func firstFindings(r scenarios.Result) ([]check.Finding, int) {
	if len(r.Findings) <= maxFindingsShown {
		return r.Findings, 0
	}
	return r.Findings[:maxFindingsShown], len(r.Findings) - maxFindingsShown
}

// counts renders nonzero anomaly counts as "name=n, ..." in name order, with
// names passed through f.
func counts(m map[check.Anomaly]int, f func(check.Anomaly) string, sep string) string {
	var parts []string
	for _, name := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%d", f(name), m[name]))
	}
	return strings.Join(parts, sep)
}

func identity(s string) string { return s }

// runParts describes a run from the document's own fields, data passed
// through code.
func runParts(doc results.Document, code func(string) string) []string {
	var parts []string
	if doc.Command != "" {
		parts = append(parts, "command "+code(doc.Command))
	}
	if doc.Profile != "" {
		parts = append(parts, "profile "+code(doc.Profile))
	}
	if len(doc.Seeds) > 0 {
		parts = append(parts, plural(len(doc.Seeds), "seed"))
	}
	if !doc.Started.IsZero() {
		parts = append(parts, "started "+doc.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if doc.DurationMS > 0 {
		parts = append(parts, "took "+seconds(doc.DurationMS)+" s")
	}
	return parts
}

// declarationOf says what a cell must do: what the catalog declares for a
// built-in strategy, pass for a user's service.
func declarationOf(r scenarios.Result) string {
	switch {
	case scenarios.IsClientScenario(r.Scenario):
		return "your client must keep its half of the contract"
	case r.Service:
		return "your service must pass"
	}
	return declaration(r)
}

// declaration says what the catalog declares for a result's cell.
func declaration(r scenarios.Result) string { return declaredAs(r, check.Anomaly.String) }

// declaredAs is declaration with each anomaly written by name.
func declaredAs(r scenarios.Result, name func(check.Anomaly) string) string {
	join := func(as []check.Anomaly) string {
		names := make([]string, len(as))
		for i, a := range as {
			names[i] = name(a)
		}
		return strings.Join(names, ", ")
	}
	s := "declared: must pass"
	if len(r.Expected) > 0 {
		s = "declared: fails with " + join(r.Expected)
	}
	if varies := scenarios.Varies(r.Strategy, r.Scenario); len(varies) > 0 {
		s += " (may show " + join(varies) + " on some seeds)"
	}
	return s
}

// seedState is a result's verdict read against its declaration.
func seedState(r scenarios.Result) string {
	if r.Service {
		return string(r.Verdict)
	}
	switch r.Class() {
	case scenarios.Unproven:
		return "inconclusive"
	case scenarios.Passed, scenarios.Caught:
		return string(r.Verdict) + ", as declared"
	case scenarios.Missed:
		return "pass, NOT as declared: the flaw was not caught"
	}
	return string(r.Verdict) + ", NOT as declared"
}

// findingLine is a finding in one line of plain text.
func findingLine(f check.Finding) string {
	s := string(f.Anomaly) + ": " + oneLine(f.Detail)
	var ids []string
	if len(f.Attempts) > 0 {
		ids = append(ids, "attempts "+strings.Join(f.Attempts, ", "))
	}
	if len(f.Charges) > 0 {
		ids = append(ids, "charges "+strings.Join(f.Charges, ", "))
	}
	if len(ids) > 0 {
		s += " [" + strings.Join(ids, "; ") + "]"
	}
	return s
}

// oneLine folds line breaks so data cannot break a line-oriented format.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", " ")), " ")
}

// cellText is a matrix cell: verdict, seeds that did not pass, anomaly
// counts, and a mark when the cell is not as declared.
func cellText(c results.Cell) string {
	icon := map[scenarios.Verdict]string{scenarios.Pass: "✅", scenarios.Fail: "❌", scenarios.Inconclusive: "⚠️"}
	v := c.Verdict()
	s := icon[v] + " " + string(v)
	bad := 0
	for _, r := range c.Results {
		if r.Verdict != scenarios.Pass {
			bad++
		}
	}
	if bad > 0 {
		s += fmt.Sprintf(" %d/%d", bad, len(c.Results))
	}
	if a := counts(c.Anomalies(), check.Anomaly.Short, " "); a != "" {
		s += " · " + a
	}
	if cov := c.Coverage(); cov.Of > 0 {
		s += " · " + cov.String()
	}
	return s + cellMark(c)
}

// cellMark flags a cell not as declared; an inconclusive verdict carries
// its own mark, but inconclusive seeds in a failing cell are pointed out.
func cellMark(c results.Cell) string {
	switch classify(c) {
	case stUnexpected:
		switch {
		case c.Service():
			return ""
		case notCaught(c):
			return " · ❗ not caught"
		}
		return " · ❗ unexpected"
	case stInconclusive:
		if c.Verdict() != scenarios.Inconclusive {
			return " · ⚠️ inconclusive seeds"
		}
	}
	return ""
}
