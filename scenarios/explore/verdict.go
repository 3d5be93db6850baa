package explore

import "github.com/idemchaos/idemchaos/scenarios"

// Verdict is what the exploration proved: fail when an order broke an
// invariant every time it ran, inconclusive when none did but an order
// varied across re-runs or could not be run, else pass.
func (r Result) Verdict() scenarios.Verdict {
	switch {
	case len(r.Failing()) > 0:
		return scenarios.Fail
	case len(r.Varying()) > 0 || len(r.Errors) > 0:
		return scenarios.Inconclusive
	}
	return scenarios.Pass
}
