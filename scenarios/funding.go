package scenarios

import (
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TopUpDone is a top-up of the plan as it was paid: when, and how the
// target took it (a built-in target's ledger is credited directly; a
// user's service is sent the top-up request it documents).
type TopUpDone struct {
	workload.TopUp
	At     time.Duration `json:"at_ns"`            // since the run's start
	Status int           `json:"status,omitempty"` // the service's answer (0: the ledger was credited directly)
	Err    string        `json:"err,omitempty"`    // why it failed; "": paid
}

// withFunding adds to a run's self-checks those of its top-ups
// (assumeFunded), for a plan that has any.
func withFunding(assume func(Observation) []string, plan workload.Plan) func(Observation) []string {
	if len(plan.TopUps) == 0 {
		return assume
	}
	checks := []func(Observation) []string{assumeFunded(plan)}
	if assume != nil {
		checks = append(checks, assume)
	}
	return allOf(checks)
}

// assumeFunded: a run that funds accounts proves something only if, for
// each top-up, the charge it funds was declined before it (the account
// held less than the amount), the top-up was paid, and after it a charge
// of that amount on the account went through (a retry of the declined
// key, or a fresh key's): else the top-up did not fund the account, and a
// retry still declined proves nothing.
func assumeFunded(plan workload.Plan) func(Observation) []string {
	return func(o Observation) []string {
		var out []string
		for _, t := range plan.TopUps {
			out = append(out, funded(plan, t, o)...)
		}
		return out
	}
}

// funded checks one top-up.
func funded(plan workload.Plan, t workload.TopUp, o Observation) []string {
	what := fmt.Sprintf("the top-up of %s on %s", check.Money(t.Amount), t.Account)
	done, ok := paid(o.TopUps, t)
	switch {
	case !ok:
		return []string{what + " was never paid: the run stopped before it"}
	case done.Err != "":
		return []string{fmt.Sprintf("%s failed: %s", what, done.Err)}
	}
	before, after := answersAround(plan, t, o)
	switch {
	case before[api.StatusDeclined] == 0 || acked(before):
		return []string{fmt.Sprintf("the charge of %s on %s before %s was not declined (answers: %s): the account held more than that",
			check.Money(t.Amount), t.Account, what, answersText(before))}
	case !acked(after) && !chargedAfter(plan, t, o.Ledger.Charges):
		return []string{fmt.Sprintf("after %s no charge of that amount on it went through, not even a fresh key's (answers: %s): the top-up did not fund the account",
			what, answersText(after))}
	}
	return nil
}

// paid finds the top-up t among those the run paid.
func paid(done []TopUpDone, t workload.TopUp) (TopUpDone, bool) {
	for _, d := range done {
		if d.TopUp == t {
			return d, true
		}
	}
	return TopUpDone{}, false
}

// answersAround counts, by status, the answers to the charges of t's
// account and amount sent before t's stage and from it on.
func answersAround(plan workload.Plan, t workload.TopUp, o Observation) (before, after map[int]int) {
	before, after = map[int]int{}, map[int]int{}
	stage := opStages(plan, t)
	for _, a := range o.History.Attempts {
		s, ok := stage[a.Op]
		if !ok || a.Status == 0 || a.Hidden {
			continue
		}
		if s < t.Stage {
			before[a.Status]++
		} else {
			after[a.Status]++
		}
	}
	return before, after
}

// opStages maps the ops that charge t's amount on t's account to their stage.
func opStages(plan workload.Plan, t workload.TopUp) map[int]int {
	out := map[int]int{}
	for _, op := range plan.Ops {
		if op.Account == t.Account && op.Amount == t.Amount && op.Key != "" {
			out[op.ID] = op.Stage
		}
	}
	return out
}

// chargedAfter reports whether the ledger holds a charge of t's amount on
// t's account under the key of an op of t's stage or later.
func chargedAfter(plan workload.Plan, t workload.TopUp, charges []history.Charge) bool {
	keys := map[string]bool{}
	for _, op := range plan.Ops {
		if op.Stage >= t.Stage && op.Account == t.Account && op.Amount == t.Amount && op.Key != "" {
			keys[op.Key] = true
		}
	}
	for _, c := range charges {
		if keys[c.Key] && c.Account == t.Account && c.Amount == t.Amount {
			return true
		}
	}
	return false
}

// acked reports whether counts hold a 2xx.
func acked(counts map[int]int) bool {
	for code := range counts {
		if code/100 == 2 {
			return true
		}
	}
	return false
}

// answersText writes status counts, or says there were none.
func answersText(counts map[int]int) string {
	if len(counts) == 0 {
		return "none"
	}
	return statusText(counts)
}
