package narrate

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// declinedThenCharged is none under business-refusal: request A is
// declined, acct-1 is topped up, and the retry B of the same key charges.
// B reaches failpoints, A does not: the stages, not the failpoints, put A
// first.
func declinedThenCharged(redecide bool) *record {
	retry := op(1, raceKey, 3, -1)
	retry.Stage = 1
	r := newRecord("none", "business-refusal", op(0, raceKey, 3, -1), retry)
	r.rec.Plan.TopUps = []workload.TopUp{{Stage: 1, Account: "acct-1", Amount: 1800}}
	r.rec.Obs.TopUps = []scenarios.TopUpDone{{TopUp: r.rec.Plan.TopUps[0], At: ms2(20)}}
	r.try(0, 1, raceKey, 1, 2, 5, 6, api.StatusDeclined, "", false)
	r.at("before-commit", "o1-t1", raceKey, 32)
	r.at("after-commit", "o1-t1", raceKey, 33)
	r.try(1, 1, raceKey, 30, 31, 34, 35, 201, "ch_1", false)
	r.charge("ch_1", raceKey, "o1-t1", 1)
	r.rec.Obs.Ledger.Accounts[0].Credited, r.rec.Obs.Ledger.Accounts[0].Balance = 1800, 1_000_000
	if redecide {
		r.rec.Cell.Profile = api.Profile{Name: "forgetful", MissingKey: 400, InFlight: 409, Mismatch: 422, RedecideRefusals: true}
		r.res.Deviations = []check.Finding{{Anomaly: check.RefusalNotReplayed, Key: raceKey, Attempts: []string{"o1-t1", "o0-t1"}}}
		return r
	}
	r.finding(check.RefusalNotReplayed, raceKey, "o1-t1", "o0-t1")
	return r
}

// TestDeclinedThenChargedIsTold: the decline, the top-up between the
// stages, the retry's charge, the balance with what was paid in, and the
// anomaly in domain words.
func TestDeclinedThenChargedIsTold(t *testing.T) {
	n := Story(declinedThenCharged(false).rec, declinedThenCharged(false).res)
	mustHave(t, n.Text(),
		"1. client A sends POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"replica 0 declines request A: 402 Payment Required, insufficient funds\n",
		"client A gets 402 Payment Required: declined\n",
		"acct-1 is topped up: 18.00 paid in, outside the charge API\n",
		"client B sends the same POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request B\n",
		"client B gets 201 Created (charge #1)\n",
		"balance of acct-1 from this key: 10,000.00 + 18.00 paid in - 18.00 = 10,000.00: one charge\n",
		"REFUSAL NOT REPLAYED: client A was declined with 402; then client B got 201 (charge #1): told declined, then charged\n")
	mustHave(t, n.Mermaid, "R0-->>cA: 402 declined\n", "Note over PG: acct-1 topped up with 18.00\n", "cB->>R0: same POST")
	if want := []check.Anomaly{check.RefusalNotReplayed}; len(n.Anomalies) != 1 || n.Anomalies[0] != want[0] {
		t.Errorf("anomalies %v; want %v", n.Anomalies, want)
	}
}

// TestDeclinedKeyDecidedAgainByDesign: under a profile that decides a
// declined key again, the same story ends well: a deviation is no anomaly.
func TestDeclinedKeyDecidedAgainByDesign(t *testing.T) {
	r := declinedThenCharged(true)
	n := Story(r.rec, r.res)
	if len(n.Anomalies) != 0 || strings.Contains(n.Text(), "REFUSAL NOT REPLAYED") {
		t.Errorf("a documented deviation told as an anomaly:\n%s", n.Text())
	}
	mustHave(t, n.Text(), "acct-1 is topped up: 18.00 paid in", "one charge")
}
