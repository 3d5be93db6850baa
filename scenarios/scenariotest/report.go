package scenariotest

import (
	"errors"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// Run runs each named scenario as a subtest of t against the target: every
// finding becomes a t.Error with its evidence; a scenario that needs the
// service's internals is skipped with the reason.
func Run(t *testing.T, target Target, names ...string) {
	t.Helper()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			res, err := Check(t.Context(), target, name)
			var skip *scenarios.SkipError
			switch {
			case errors.As(err, &skip):
				t.Skip(skip.Reason)
			case err != nil:
				t.Fatal(err)
			}
			Report(t, res)
		})
	}
}

// Report turns a result into test errors: one per finding, then the repro
// seed; an inconclusive run is an error too (it proved nothing).
func Report(tb testing.TB, res scenarios.Result) {
	tb.Helper()
	for _, f := range res.Findings {
		tb.Errorf("%s: %s", f.Anomaly, f.Detail)
	}
	switch res.Verdict {
	case scenarios.Fail:
		tb.Errorf("%s failed on seed %d: %d requests, %d overcharged (minor units)", res.Scenario, res.Seed, res.Requests, res.Overcharged)
	case scenarios.Inconclusive:
		tb.Errorf("%s inconclusive on seed %d: %v", res.Scenario, res.Seed, res.Assumptions)
	}
}
