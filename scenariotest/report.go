package scenariotest

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Run runs each named scenario against the target and, when one broke an
// invariant or proved nothing, reports it as one error of t at the line
// that called Run: what the HTML report puts first (the verdict, the
// gravest anomaly with how to avoid it and how to run it again), then a few
// findings per anomaly, money first, how many more, and how to see them
// all (go test -v prints every one; Target.Out saves the run with its HTML
// report). A scenario that cannot run against the target (it needs the
// service's internals) is counted, and logged with the reason under -v;
// when none of the named scenarios could run, the test fails: a test that
// ran nothing proved nothing.
func Run(t testing.TB, target Target, names ...string) {
	t.Helper()
	o, err := target.run(t.Context(), names, target.Out)
	if err != nil {
		t.Errorf("scenariotest: %v", err)
		return
	}
	report(t, o, target.Out, testing.Verbose())
	if len(o.results) == 0 {
		t.Errorf("scenariotest: none of %v could run against the target: nothing was tested", names)
	}
}

// RunAll runs every scenario of the catalog that can run against the
// target, as Run does.
func RunAll(t testing.TB, target Target) {
	t.Helper()
	Run(t, target, scenarios.Names()...)
}

// Report turns a result that did not pass into one test error at the
// caller's line, as Run does.
func Report(tb testing.TB, res scenarios.Result) {
	tb.Helper()
	report(tb, outcome{results: []scenarios.Result{res}}, "", testing.Verbose())
}

// shownEach is how many findings of each anomaly a failing test shows
// (all of them under -v).
const shownEach = 3

// width is where a test error's lines break: go test indents them by 8.
const width = 110

// report reports the outcome: the skipped scenarios logged (under
// verbose, or when nothing ran, as they say why), then one error when a
// scenario did not pass. out is where the run was saved ("": nowhere).
func report(tb testing.TB, o outcome, out string, verbose bool) {
	tb.Helper()
	if verbose || len(o.results) == 0 {
		for _, s := range o.skipped {
			tb.Logf("%s: not run: %s", s.Scenario, s.Reason)
		}
	}
	if passed(o.results) {
		return
	}
	doc := results.Document{Command: "go test", Results: o.results, Skipped: o.skipped}
	v := reports.View{Width: width}
	var b strings.Builder
	notRun := " (go test -v says what each needs)"
	if verbose {
		notRun = " (logged above, with what each needs)"
	}
	_ = reports.WriteVerdict(&b, doc, v, notRun)
	each := shownEach
	if verbose {
		each = math.MaxInt
	}
	left, _ := reports.WriteFindings(&b, o.results, v, each)
	for _, r := range o.results {
		if r.Verdict != scenarios.Pass {
			b.WriteString(reports.Wrap("", "  ", outcomeOf(r), width))
		}
	}
	b.WriteString(reports.Wrap("", "  ", seeAll(left, out), width))
	tb.Error(strings.TrimSuffix(b.String(), "\n"))
}

// passed reports whether every result passed.
func passed(rs []scenarios.Result) bool {
	for _, r := range rs {
		if r.Verdict != scenarios.Pass {
			return false
		}
	}
	return true
}

// outcomeOf is the line of a scenario that did not pass: how it ended and
// how to run it again.
func outcomeOf(r scenarios.Result) string {
	if r.Verdict == scenarios.Inconclusive {
		return fmt.Sprintf("%s proved nothing: %s; %s", r.Scenario, strings.Join(r.Assumptions, "; "), r.Repro)
	}
	s := fmt.Sprintf("%s failed: %d requests", r.Scenario, r.Requests)
	if r.Overcharged > 0 {
		s += ", " + check.Amount(r.Overcharged, r.Currency) + " overcharged"
	}
	return s + "; " + r.Repro
}

// seeAll says where every finding and the rest of the evidence are.
func seeAll(left int, out string) string {
	if out != "" {
		return fmt.Sprintf("The run is saved in %s; its HTML report, with the timelines of the offending keys: %s",
			out, filepath.Join(out, rundir.ReportFile))
	}
	s := "Set Target.Out to a directory to save the run with its HTML report (the timelines of the offending keys)."
	if left > 0 {
		s = fmt.Sprintf("%d more findings: go test -v prints every one. ", left) + s
	}
	return s
}
