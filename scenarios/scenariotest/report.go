package scenariotest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// Run runs each named scenario against the target and reports every
// finding as an error of t at the line that called Run, prefixed with the
// scenario. A scenario that cannot run against the target (it needs the
// service's internals) is logged with the reason; when none of the named
// scenarios could run, the test fails: a test that ran nothing proved
// nothing.
func Run(t testing.TB, target Target, names ...string) {
	t.Helper()
	ran := 0
	for _, name := range names {
		if runOne(t, target, name) {
			ran++
		}
	}
	if ran == 0 {
		t.Errorf("scenariotest: none of %v could run against the target: nothing was tested", names)
	}
}

// RunAll runs every scenario of the catalog that can run against the
// target, as Run does, and logs the others with what they need.
func RunAll(t testing.TB, target Target) {
	t.Helper()
	Run(t, target, scenarios.Names()...)
}

// runOne runs one scenario and reports it; it says whether it ran.
func runOne(t testing.TB, target Target, name string) bool {
	t.Helper()
	res, err := Check(t.Context(), target, name)
	var skip *scenarios.SkipError
	switch {
	case errors.As(err, &skip):
		t.Logf("%s: not run: %s", name, skip.Reason)
		return false
	case err != nil:
		t.Errorf("%s: %v", name, err)
		return true
	}
	Report(t, res)
	return true
}

// Report turns a result into test errors at the caller's line: one per
// finding, then the seed that reproduces it; an inconclusive run is an
// error too (it proved nothing).
func Report(tb testing.TB, res scenarios.Result) {
	tb.Helper()
	for _, f := range res.Findings {
		tb.Errorf("%s: %s: %s", res.Scenario, f.Anomaly, f.Detail)
	}
	switch res.Verdict {
	case scenarios.Fail:
		tb.Errorf("%s failed: %d requests, %s overcharged; %s", res.Scenario, res.Requests, money(res.Overcharged), res.Repro)
	case scenarios.Inconclusive:
		tb.Errorf("%s proved nothing: %v; %s", res.Scenario, res.Assumptions, res.Repro)
	}
}

// money writes minor units as major.minor.
func money(minor int64) string { return fmt.Sprintf("%d.%02d", minor/100, minor%100) }
