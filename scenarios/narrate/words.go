package narrate

import (
	"fmt"
	"net/http"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// send tells a client putting a request on the wire.
func (r *renderer) send(u *unit) {
	a := u.first()
	if a.Hidden {
		r.say("Go's HTTP transport silently sends %s's POST again, on a reused connection", u.client())
		r.draw("%s->>%s: hidden re-send by the transport", u.mid(), u.rid())
		return
	}
	r.topUps(u)
	r.storeEvents(u)
	text, msg := r.s.sendText(u)
	if r.s.replicas {
		text += " to " + u.replica()
	}
	if a.Fault == workload.DropResponse {
		text += ", through a proxy that will drop the answer"
		msg += ", answer to be dropped"
	}
	r.say("%s", text)
	r.draw("%s->>%s: %s", u.mid(), u.rid(), msg)
}

// sendText is the line and the diagram message of a send.
func (s *story) sendText(u *unit) (string, string) {
	o, first := u.op, s.ops[0]
	what := fmt.Sprintf("%s on %s", money(o.amount), o.account)
	switch {
	case u.n > 1:
		return u.client() + " retries", "retry"
	case o.replay:
		return fmt.Sprintf("%s sends the same POST /v1/charges, key %s, %s, again once the traffic is over, to see its replay",
			u.client(), short(o.key), what), "same POST again, key " + short(o.key)
	case o.probe:
		return fmt.Sprintf("the probe sends POST /v1/charges, key %s, %s again, once the faults have healed and the claim "+
			"timeout has passed", short(o.key), what), "POST again, key " + short(o.key)
	case o.key == "":
		return fmt.Sprintf("%s sends POST /v1/charges without an Idempotency-Key, %s", u.client(), what), "POST, no key, " + what
	case o == first:
		return fmt.Sprintf("%s sends POST /v1/charges, key %s, %s", u.client(), short(o.key), what),
			fmt.Sprintf("POST key %s, %s", short(o.key), what)
	case o.account == first.account && o.amount == first.amount:
		return fmt.Sprintf("%s sends the same POST /v1/charges, key %s, %s", u.client(), short(o.key), what),
			fmt.Sprintf("same POST, key %s", short(o.key))
	}
	return fmt.Sprintf("%s sends POST /v1/charges with the same key %s but another body: %s", u.client(), short(o.key), what),
		fmt.Sprintf("POST key %s, another body: %s", short(o.key), what)
}

// point tells a request reaching a failpoint, the faults injected there and
// the gate holding it.
func (r *renderer) point(st *step) {
	u := st.u
	a := u.first()
	switch st.ev.Point {
	case "after-check":
		r.words(u, r.s.mech.check, "")
	case "after-claim":
		r.words(u, r.s.mech.claim, "")
	case "before-commit":
		r.debit(u, a)
	case "after-commit":
		c := r.s.charge(r.s.chargeOf(a))
		r.commits[u] = true
		r.say("%s commits %s (%s on %s) for %s", r.s.mech.sql, c, money(a.Amount), a.Account, u.request())
		r.draw("PG-->>%s: committed %s (%s)", u.rid(), c, u.short())
	case "before-store-response":
		r.store(u)
	default:
		r.say("%s reaches %s (%s)", u.replica(), st.ev.Point, u.request())
	}
	r.faults(u, st.ev.Point)
	if st.hold {
		r.hold(u)
	}
}

// debit tells the money leaving the account as a request's transaction is
// about to commit: in that transaction, or committed already in a first one.
func (r *renderer) debit(u *unit, a history.Attempt) {
	if r.s.mech.debitApart {
		r.say("%s debited %s from %s in a first transaction, committed already; its charge row and key are about to "+
			"commit in a second", u.request(), money(a.Amount), a.Account)
		r.draw("%s->>PG: debit %s on %s, committed (%s)", u.rid(), money(a.Amount), a.Account, u.short())
		r.draw("%s->>PG: charge row, key (%s)", u.rid(), u.short())
		return
	}
	r.say("%s's %s transaction debits %s from %s and is about to commit", u.request(), r.s.mech.sql, money(a.Amount), a.Account)
	r.draw("%s->>PG: debit %s on %s (%s)", u.rid(), money(a.Amount), a.Account, u.short())
}

// words tells a strategy's own step at a failpoint.
func (r *renderer) words(u *unit, w pointWords, resp string) {
	if w.text == "" {
		return
	}
	text := fmt.Sprintf(w.text, u.replica(), short(r.s.key), u.request(), resp)
	switch {
	case w != r.s.mech.check || !r.s.mech.standby || r.storedBy == nil:
	case r.commits[r.storedBy]:
		text += ": the standby has not replayed " + r.storedBy.request() + "'s commit yet"
	default:
		text += ": " + r.storedBy.request() + " has not committed yet, so the two race and the standby's lag plays no part"
	}
	r.say("%s", text)
	if w.store == selfID {
		r.draw("Note over %s: %s (%s)", u.rid(), w.verb, u.short())
		return
	}
	r.draw("%s->>%s: %s (%s)", u.rid(), w.store, w.verb, u.short())
	if w.reply != "" {
		r.draw("%s-->>%s: %s", w.store, u.rid(), w.reply)
	}
}

// store tells a request storing its response for replays: lost if the
// link to its store was cut earlier in the request, over another request's
// response if one was stored before.
func (r *renderer) store(u *unit) {
	w := r.s.mech.store
	if w.text == "" {
		return
	}
	resp := r.s.response(u.first())
	if w.store == postgresID {
		resp = r.s.storedInTx(u.first())
	}
	text := fmt.Sprintf(w.text, u.replica(), short(r.s.key), u.request(), resp)
	lost := w.store != selfID && r.cut[u][w.store]
	switch {
	case lost:
		text += fmt.Sprintf(": the write is lost, the link to %s is cut", r.storeName(w.store))
	case r.storedBy != nil && r.storedBy != u && r.s.mech.keepsFirst:
		text += ": " + r.storedBy.request() + "'s key row is there already and stays"
	case r.storedBy != nil && r.storedBy != u:
		text += ", over " + r.storedBy.request() + "'s"
	}
	r.say("%s", text)
	switch {
	case w.store == selfID:
		r.draw("Note over %s: %s (%s)", u.rid(), w.verb, u.short())
	case lost:
		r.draw("%s-x%s: %s %s (%s), lost", u.rid(), w.store, w.verb, resp, u.short())
	default:
		r.draw("%s->>%s: %s %s (%s)", u.rid(), w.store, w.verb, resp, u.short())
	}
	if !lost && (r.storedBy == nil || !r.s.mech.keepsFirst) {
		r.storedBy = u
	}
}

// storeName names a store participant in a sentence: PG is the
// strategy's SQL store (Postgres, or InnoDB).
func (r *renderer) storeName(id string) string {
	if id == postgresID {
		return r.s.mech.sql
	}
	return id
}

// response labels a server's answer: "201, charge #1" or "503".
func (s *story) response(a history.Attempt) string {
	if a.Server == nil {
		return "no answer"
	}
	if a.Server.ChargeID != "" {
		return fmt.Sprintf("%d, %s", a.Server.Status, s.charge(a.Server.ChargeID))
	}
	return fmt.Sprint(a.Server.Status)
}

// storedInTx labels the response a request stores in its charge's
// transaction: the answer it ends with, unless that is a 5xx of the
// transaction's own end, when what it stored was its charge's 201,
// committed after all (its answer lost) or rolled back with it.
func (s *story) storedInTx(a history.Attempt) string {
	if a.Server == nil || a.Server.Status < 500 {
		return s.response(a)
	}
	if c := s.chargeOf(a); c != "" {
		return fmt.Sprintf("%d, %s", http.StatusCreated, s.charge(c))
	}
	return fmt.Sprintf("%d, for a charge that never commits", http.StatusCreated)
}

// chargeOf is the id of the ledger charge an attempt made, else the charge
// its server answer named.
func (s *story) chargeOf(a history.Attempt) string {
	for _, c := range s.charges {
		if c.AttemptID == a.ID {
			return c.ID
		}
	}
	if a.Server != nil {
		return a.Server.ChargeID
	}
	return ""
}
