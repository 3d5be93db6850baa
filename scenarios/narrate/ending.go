package narrate

import (
	"fmt"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// ending tells how the story ends: the money, then each anomaly the checker
// found about it, or why it ended well.
func (r *renderer) ending() {
	r.balance()
	for _, name := range r.s.anomalies {
		if name != check.DoubleCharge {
			r.anomaly(name)
		}
	}
	if r.s.res.Verdict == scenarios.Inconclusive && len(r.s.anomalies) == 0 {
		r.say("INCONCLUSIVE: %s", strings.Join(r.s.res.Assumptions, "; "))
		r.draw("Note over PG: INCONCLUSIVE")
	}
}

// balance tells the account's balance from the story's charges alone.
func (r *renderer) balance() {
	s := r.s
	o := s.ops[0]
	opening, total, expr := s.opening(o.account), int64(0), []string{}
	var amounts []int64
	for _, c := range s.charges {
		if c.Account == o.account {
			amounts = append(amounts, c.Amount)
			total += c.Amount
		}
	}
	credited := s.credited(o.account)
	start := money(opening)
	if credited > 0 {
		start += " + " + money(credited) + " paid in"
	}
	expr = append(expr, start)
	for _, a := range amounts {
		expr = append(expr, money(a))
	}
	head := fmt.Sprintf("balance of %s from this %s: %s", o.account, s.subject(), strings.Join(expr, " - "))
	if len(amounts) > 0 || credited > 0 {
		head += " = " + money(opening+credited-total)
	}
	switch n := len(amounts); {
	case n > 1 && s.has(check.DoubleCharge):
		r.say("%s, expected %s: DOUBLE CHARGE (%s overcharged)", head, money(opening+credited-amounts[0]), money(total-amounts[0]))
		r.draw("Note over PG: %s charged %s for one key: DOUBLE CHARGE", o.account, times(n))
	case n > 1:
		r.say("%s: %d charges, which the checker allows: the key's retention had passed in between", head, n)
		r.draw("Note over PG: %d charges, the key had expired in between", n)
	case n == 1 && s.has(check.Balance) && s.mech.debitApart:
		d := s.debits()
		r.say("%s: one charge row, but the key's requests debited %s %s (%s)", head, o.account, times(d), money(int64(d)*o.amount))
		r.draw("Note over PG: one charge row on %s, %s debited", o.account, times(d))
	case n == 1:
		r.say("%s: one charge%s", head, r.wellEnded())
		r.draw("Note over PG: one charge on %s", o.account)
	case credited > 0:
		r.say("%s: no charge%s", head, r.wellEnded())
		r.draw("Note over PG: no charge on %s", o.account)
	default:
		r.say("%s, untouched: no charge%s", head, r.wellEnded())
		r.draw("Note over PG: no charge on %s", o.account)
	}
}

// debits counts the story's requests that reached the commit of their
// charge: each debited the account, whatever became of its charge row.
func (s *story) debits() int {
	n := 0
	for _, u := range s.units {
		if u.find(pointStep, "before-commit") != nil {
			n++
		}
	}
	return n
}

// subject is what the story is about: "key" or "request".
func (s *story) subject() string {
	if s.key == "" {
		return "request"
	}
	return "key"
}

// opening is an account's opening balance.
func (s *story) opening(account string) int64 {
	for _, a := range s.rec.Obs.Ledger.Accounts {
		if a.ID == account {
			return a.Opening
		}
	}
	for _, a := range s.rec.Plan.Accounts {
		if a.ID == account {
			return a.Opening
		}
	}
	return 0
}

// has reports whether the story ends in an anomaly.
func (s *story) has(name check.Anomaly) bool {
	for _, n := range s.anomalies {
		if n == name {
			return true
		}
	}
	return false
}

// wellEnded is the reason a story without anomalies ended well: what the
// other requests got.
func (r *renderer) wellEnded() string {
	if len(r.s.anomalies) > 0 {
		return ""
	}
	if sum := r.s.summary(); sum != "" {
		if len(r.s.charges) == 1 {
			return ", the key held (" + sum + ")"
		}
		return " (" + sum + ")"
	}
	if len(r.s.charges) == 1 {
		return ", as asked"
	}
	return ""
}

// summary lists, per client, what its requests got, leaving out the request
// that made the first charge: "client B got 409, then the replay".
func (s *story) summary() string {
	made := ""
	if len(s.charges) > 0 {
		made = s.charges[0].AttemptID
	}
	var parts []string
	for _, o := range s.ops {
		var got []string
		for _, u := range o.units {
			if u.last().ID != made && !u.last().Hidden {
				got = append(got, u.outcomeWord())
			}
		}
		if len(got) > 0 {
			parts = append(parts, o.units[0].client()+" got "+strings.Join(got, ", then "))
		}
	}
	return strings.Join(parts, "; ")
}

// outcomeWord is a unit's result in a word or two: "409", "the replay".
func (u *unit) outcomeWord() string {
	a := u.last()
	switch {
	case a.Status == 0 || a.Fault == workload.DropResponse && !u.clientGot():
		return "no answer"
	case is2xx(a.Status) && a.Server != nil && a.Server.Replayed:
		return "the replay"
	}
	return fmt.Sprint(a.Status)
}

// times says how often: "twice", "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
