package narrate

import (
	"fmt"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// stage is the stage of the unit's op in the plan (0 for a probe, which
// comes after every stage anyway).
func (u *unit) stage() int {
	if u.op.plan == nil {
		return 0
	}
	return u.op.plan.Stage
}

// linkStages: a unit of a later stage starts after every unit of an
// earlier one ended, as the plan ran them.
func (s *story) linkStages(x, y *unit) {
	if x.n == 1 && x.stage() > y.stage() && y == y.op.units[len(y.op.units)-1] {
		x.steps[0].after(y.final())
	}
}

// topUps tells the top-ups paid into the story's account before the
// stage of unit u, once: what happened between the stages.
func (r *renderer) topUps(u *unit) {
	st := u.stage()
	if st <= r.funded {
		return
	}
	for _, t := range r.s.paidTo(r.funded+1, st) {
		r.say("%s is topped up: %s paid in, outside the charge API", t.Account, money(t.Amount))
		r.draw("Note over PG: %s topped up with %s", t.Account, money(t.Amount))
	}
	r.funded = st
}

// paidTo lists the top-ups the run paid into the story's account before
// the stages from..to.
func (s *story) paidTo(from, to int) []scenarios.TopUpDone {
	var out []scenarios.TopUpDone
	for _, t := range s.rec.Obs.TopUps {
		if t.Err == "" && t.Stage >= from && t.Stage <= to && len(s.ops) > 0 && t.Account == s.ops[0].account {
			out = append(out, t)
		}
	}
	return out
}

// credited is what the run paid into account.
func (s *story) credited(account string) int64 {
	var sum int64
	for _, t := range s.rec.Obs.TopUps {
		if t.Err == "" && t.Account == account {
			sum += t.Amount
		}
	}
	return sum
}

// refusal tells a declined key answered otherwise: "client A was declined
// with 402; then client B got 201 (charge #1), ...: told declined, then
// charged".
func (s *story) refusal() string {
	var declined *unit
	for _, u := range s.units {
		if a := u.last(); a.Status == api.StatusDeclined && !a.Hidden && (declined == nil || a.Return < declined.last().Return) {
			declined = u
		}
	}
	var parts []string
	for _, u := range s.findingUnits(check.RefusalNotReplayed) {
		if u != declined {
			parts = append(parts, u.client()+" got "+s.outcomeText(u))
		}
	}
	if len(parts) > maxTold {
		parts = append(parts[:maxTold-1], fmt.Sprintf("%d more the same", len(parts)-maxTold+1))
	}
	end := "told declined, then answered otherwise"
	if len(s.charges) > 0 {
		end = "told declined, then charged"
	}
	if declined == nil {
		return fmt.Sprintf("%s: %s", strings.Join(parts, ", "), end)
	}
	return fmt.Sprintf("%s was declined with %d; then %s: %s", declined.client(), api.StatusDeclined, strings.Join(parts, ", "), end)
}

// maxTold bounds the requests a refusal line names.
const maxTold = 4

// outcomeText is what a unit got, with its charge: "201 (charge #1)",
// "201 (charge #1, replayed)", "402 with another body".
func (s *story) outcomeText(u *unit) string {
	a := u.last()
	switch {
	case is2xx(a.Status) && a.Server != nil && a.Server.Replayed:
		return fmt.Sprintf("%d (%s, replayed)", a.Status, s.charge(a.ChargeID))
	case is2xx(a.Status):
		return fmt.Sprintf("%d (%s)", a.Status, s.charge(a.ChargeID))
	case a.Status == api.StatusDeclined:
		return fmt.Sprintf("%d with another body", a.Status)
	case a.Status != 0:
		return fmt.Sprint(a.Status)
	}
	for _, c := range s.charges {
		if c.AttemptID == a.ID {
			return "no answer, and was charged " + s.charge(c.ID)
		}
	}
	return "no answer"
}
