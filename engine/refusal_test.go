package engine_test

import (
	"context"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestRefusalUnderEachProfile: ietf and stripe replay a decline, so
// pg-success-only fails business-refusal under both; a custom profile
// whose service decides a declined key again makes the same run a pass as
// declared, its findings kept as deviations. The top-ups are recorded as
// paid, and the accounts' credits in the ledger are what they paid in.
func TestRefusalUnderEachProfile(t *testing.T) {
	r := newRunner(t)
	forgetful := api.Profile{Name: "forgetful", MissingKey: 400, InFlight: 409, Mismatch: 422, RedecideRefusals: true}
	for _, c := range []struct {
		profile    api.Profile
		verdict    scenarios.Verdict
		deviations bool
	}{{api.IETF, scenarios.Fail, false}, {api.Stripe, scenarios.Fail, false}, {forgetful, scenarios.Pass, true}} {
		res, rec, err := engine.Run(context.Background(), r, scenarios.Cell{Strategy: "pg-success-only", Scenario: "business-refusal", Seed: 4, Profile: c.profile}, "")
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != c.verdict || !res.AsExpected || (len(res.Deviations) > 0) != c.deviations ||
			c.verdict == scenarios.Fail && res.Anomalies[check.RefusalNotReplayed] == 0 {
			t.Errorf("%s: %s (as declared %v), anomalies %v, %d deviations, assumptions %v", c.profile.Name, res.Verdict,
				res.AsExpected, res.Anomalies, len(res.Deviations), res.Assumptions)
		}
		var paid int64
		for _, top := range rec.Obs.TopUps {
			if top.Err != "" {
				t.Errorf("%s: top-up %+v failed", c.profile.Name, top)
			}
			paid += top.Amount
		}
		var credited int64
		for _, a := range rec.Obs.Ledger.Accounts {
			credited += a.Credited
		}
		if len(rec.Obs.TopUps) != 3 || paid == 0 || credited != paid {
			t.Errorf("%s: %d top-ups paid %d, the ledger credited %d", c.profile.Name, len(rec.Obs.TopUps), paid, credited)
		}
	}
}
