package narrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// anomaly tells one anomaly the checker found about the story.
func (r *renderer) anomaly(name check.Anomaly) {
	s := r.s
	var text string
	switch name {
	case check.ReplayMismatch:
		text = "REPLAY MISMATCH: one key, different answers: " + s.acks()
	case check.StoreDesync:
		text = "STORE DESYNC: " + s.desync()
	case check.StuckKey:
		text = "STUCK KEY: " + s.stuck()
	case check.CachedError:
		text = "CACHED ERROR: " + s.cached()
	case check.HeldDuplicate:
		text = "HELD DUPLICATE: " + s.held()
	case check.RefusalNotReplayed:
		text = "REFUSAL NOT REPLAYED: " + s.refusal()
	case check.MismatchExecuted:
		text = "MISMATCH EXECUTED: " + s.each(name, s.mismatchExecuted)
	case check.LostAck:
		text = "LOST ACK: " + s.each(name, s.lostAck)
	case check.StatusContract:
		text = "STATUS CONTRACT: " + s.each(name, s.statusContract)
	case check.Balance:
		text = "BALANCE: " + s.drift(s.ops[0].account)
	default:
		text = fmt.Sprintf("%s: %d findings", strings.ToUpper(string(name)), s.count(name))
	}
	r.say("%s", text)
	r.draw("Note over PG: %s", strings.ToUpper(strings.ReplaceAll(string(name), "_", " ")))
}

// count is how many findings of an anomaly the story has.
func (s *story) count(name check.Anomaly) int {
	n := 0
	for _, f := range s.findings {
		if f.Anomaly == name {
			n++
		}
	}
	return n
}

// acks lists the charges the clients were told about: "client B got
// charge #1, client A got charge #2".
func (s *story) acks() string {
	var parts []string
	for _, u := range s.units {
		a := u.last()
		if u.clientGot() && is2xx(a.Status) {
			parts = append(parts, fmt.Sprintf("%s got %s", u.client(), s.charge(a.ChargeID)))
		}
	}
	return strings.Join(parts, ", ")
}

// desync tells how Redis and Postgres disagree about the key.
func (s *story) desync() string {
	first := "nothing"
	if len(s.charges) > 0 {
		first = s.charge(s.charges[0].ID)
	}
	rec := s.redisRecord()
	var redis string
	switch {
	case rec == nil:
		redis = "Redis holds no record of key " + short(s.key)
	case !rec.Done:
		redis = "Redis still holds only a claim on key " + short(s.key)
	case rec.ChargeID != "":
		redis = fmt.Sprintf("Redis's record of key %s names %s", short(s.key), s.charge(rec.ChargeID))
	default:
		redis = fmt.Sprintf("Redis's record of key %s holds a %d", short(s.key), rec.Status)
	}
	return fmt.Sprintf("Postgres committed %s first, but %s", first, redis)
}

// stuck tells the probe that found the key poisoned.
func (s *story) stuck() string {
	for _, u := range s.findingUnits(check.StuckKey) {
		if u.op.probe && !u.op.replay {
			return fmt.Sprintf("the probe still gets %s once the faults have healed and the claim timeout has passed: "+
				"key %s is poisoned", status(u.last().Status), short(s.key))
		}
	}
	if s.stranded() {
		return fmt.Sprintf("key %s was answered for good, yet its retries are refused as in flight while nothing of it is: "+
			"it is poisoned", short(s.key))
	}
	return fmt.Sprintf("key %s still refuses its retries after the faults healed: it is poisoned", short(s.key))
}

// strandedBy reports whether u, not a probe, is one of the retries a
// stuck_key finding names: turned away as in flight with nothing of the
// key in flight (check's stuckAfterRefusal).
func (s *story) strandedBy(u *unit) bool {
	return !u.op.probe && slices.Contains(s.findingUnits(check.StuckKey), u)
}

// stranded reports whether the story's stuck key was shown by retries
// turned away with nothing in flight, not by its probes.
func (s *story) stranded() bool {
	return slices.ContainsFunc(s.findingUnits(check.StuckKey), func(u *unit) bool { return !u.op.probe })
}

// cached tells the replayed error.
func (s *story) cached() string {
	for _, u := range s.units {
		srv := u.last().Server
		if srv != nil && srv.Status >= 500 && (srv.Replayed || u.op.probe && !u.op.replay) {
			text := fmt.Sprintf("%s gets a stored %s replayed: key %s is poisoned with an error", u.request(), status(srv.Status), short(s.key))
			if len(s.charges) == 0 {
				text += " that charged nothing"
			}
			return text
		}
	}
	return fmt.Sprintf("a 5xx was replayed for key %s", short(s.key))
}

// each tells an anomaly once per request its findings name.
func (s *story) each(name check.Anomaly, tell func(*unit) string) string {
	var parts []string
	for _, u := range s.findingUnits(name) {
		if t := tell(u); t != "" {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d findings", s.count(name))
	}
	return strings.Join(parts, ", and ")
}

func (s *story) mismatchExecuted(u *unit) string {
	a, first := u.last(), s.ops[0]
	if u.op == first {
		return ""
	}
	text := fmt.Sprintf("%s reused key %s with another amount (%s) and got %s", u.request(), short(s.key), money(a.Amount), status(a.Status))
	if set := s.profile.MismatchSet(); len(set) > 0 {
		text += " instead of " + set.Names(status)
	}
	for _, c := range s.charges {
		if c.AttemptID == a.ID {
			text += ", and was charged"
		}
	}
	return text
}

func (s *story) lostAck(u *unit) string {
	a := u.last()
	if !is2xx(a.Status) {
		return ""
	}
	for _, c := range s.rec.Obs.Ledger.Charges {
		if c.ID == a.ChargeID {
			return fmt.Sprintf("%s got %s naming %s, which is %s on %s, not its %s on %s", u.request(), status(a.Status),
				s.charge(c.ID), money(c.Amount), c.Account, money(a.Amount), a.Account)
		}
	}
	return fmt.Sprintf("%s got %s naming %s, which the ledger does not hold", u.request(), status(a.Status), s.charge(a.ChargeID))
}

func (s *story) statusContract(u *unit) string {
	a := u.last()
	text := fmt.Sprintf("%s got %s, which the %s profile does not allow here", u.request(), status(a.Status), s.profile.Name)
	if s.key == "" && s.profile.MissingKey != 0 {
		text += fmt.Sprintf(": it wants %s for a request without a key", status(s.profile.MissingKey))
	}
	return text
}

// findingUnits lists the units the findings of an anomaly name, in story
// order.
func (s *story) findingUnits(name check.Anomaly) []*unit {
	named := map[*unit]bool{}
	for _, f := range s.findings {
		if f.Anomaly != name {
			continue
		}
		for _, id := range f.Attempts {
			if u := s.unitOf(id); u != nil {
				named[u] = true
			}
		}
	}
	var out []*unit
	for _, u := range s.units {
		if named[u] {
			out = append(out, u)
		}
	}
	return out
}

// drift tells how an account's balance in the ledger parts from its
// charges, over the whole run: "acct-1 holds 9,976.00, where its opening
// balance minus its 2 charges leaves 9,988.00: 12.00 left it with no
// charge row".
func (s *story) drift(account string) string {
	var want, held int64
	start := "opening balance"
	for _, a := range s.rec.Obs.Ledger.Accounts {
		if a.ID == account {
			want, held = a.Opening+a.Credited, a.Balance
			if a.Credited > 0 {
				start += " and top-ups"
			}
		}
	}
	n := 0
	for _, c := range s.rec.Obs.Ledger.Charges {
		if c.Account == account {
			want -= c.Amount
			n++
		}
	}
	what := fmt.Sprintf("%s left it with no charge row", money(want-held))
	if held > want {
		what = fmt.Sprintf("a charge row for %s took no money", money(held-want))
	}
	charges := fmt.Sprintf("%d charges", n)
	if n == 1 {
		charges = "one charge"
	}
	return fmt.Sprintf("%s holds %s, where its %s minus its %s leave %s: %s", account, money(held), start,
		charges, money(want), what)
}
