package narrate

import "github.com/idemchaos/idemchaos/targets/api"

// injected is the fault the plan placed inside the target for the unit's
// try, if any.
func (u *unit) injected() (api.Injection, bool) {
	if u.op.plan == nil || len(u.events) == 0 {
		return api.Injection{}, false
	}
	in := u.op.plan.TryAt(u.first().Try).Inject
	return in, !in.IsZero()
}

// faults tells the fault injected at point, if the request carries one
// there: the request reached the point, so the fault fired.
func (r *renderer) faults(u *unit, point string) {
	in, ok := u.injected()
	if !ok || string(in.Point) != point {
		return
	}
	switch in.Action {
	case api.PGCut:
		r.cutLink(u, postgresID)
	case api.RedisCut:
		r.cutLink(u, redisID)
	case api.PGDropReply:
		r.lostCommit(u)
	case api.PGLatency:
		r.say("fault: the link from %s to %s turns slow", u.replica(), r.s.mech.sql)
		r.draw("Note over %s,PG: link slow (fault)", u.rid())
	case api.StandbyLag:
		r.say("fault: the replication link from the Postgres primary to its hot standby turns slow (%s a reply): the standby falls behind", in.Arg)
		r.draw("Note over PG: replication to the standby slow (fault)")
	case api.PGCrash:
		r.crash(u)
	case api.Delay:
		r.say("fault: %s stalls here, on purpose", u.request())
		r.draw("Note over %s: %s stalls (fault)", u.rid(), u.short())
	default:
		r.say("fault: %s fires here (%s)", in.Action, u.request())
		r.draw("Note over %s: %s (fault)", u.rid(), in.Action)
	}
}

// lostCommit tells the link losing what the database answers from before
// u's COMMIT: the COMMIT goes through (its charge is in the ledger) and u
// hears only that its connection broke.
func (r *renderer) lostCommit(u *unit) {
	sql := r.s.mech.sql
	r.say("fault: the link from %s to %s loses whatever %s answers from here on, then breaks", u.replica(), sql, sql)
	r.draw("Note over %s,PG: answers lost, then link broken (fault)", u.rid())
	c := r.s.chargeOf(u.first())
	if c == "" {
		return
	}
	a := u.first()
	r.say("%s commits %s (%s on %s) for %s, but its answer never comes back: %s only sees its connection break",
		sql, r.s.charge(c), money(a.Amount), a.Account, u.request(), u.replica())
	r.draw("PG--x%s: committed %s, answer lost (%s)", u.rid(), r.s.charge(c), u.short())
}

// crash tells the primary killed right after u's commit and restarted,
// and whether u's commit survived its recovery (a stored response that
// vanished is no longer the key's).
func (r *renderer) crash(u *unit) {
	r.say("fault: the Postgres primary is killed (SIGKILL) right after %s's commit, before the answer, and restarted", u.request())
	r.draw("Note over PG: primary killed and restarted (fault)")
	c := r.s.chargeOf(u.first())
	for _, ch := range r.s.charges {
		if ch.ID == c {
			r.say("Postgres recovers from its WAL with %s: the commit was written out before it was acknowledged", r.s.charge(c))
			return
		}
	}
	r.say("Postgres recovers from its WAL without %s or key %s: the commit was acknowledged before its WAL was written, and the WAL buffers died with the server",
		r.s.charge(c), short(r.s.key))
	r.draw("Note over PG: %s and key lost", r.s.charge(c))
	if r.storedBy == u {
		r.storedBy = nil
	}
}

// cutLink tells a store link cut under a request.
func (r *renderer) cutLink(u *unit, store string) {
	if r.cut[u] == nil {
		r.cut[u] = map[string]bool{}
	}
	r.cut[u][store] = true
	r.say("fault: the link from %s to %s is cut", u.replica(), r.storeName(store))
	if store == redisID && !r.s.mech.usesRedis {
		r.draw("Note over %s: link to Redis cut (fault)", u.rid())
		return
	}
	r.draw("Note over %s,%s: link cut (fault)", u.rid(), store)
}

// holdPhrases say where a gate holds a request and until when.
var holdPhrases = map[string]string{
	"after-check":           "right after its key check",
	"after-claim":           "right after its claim",
	"before-commit":         "right before its commit",
	"after-commit":          "right after its commit",
	"before-store-response": "right before it stores its response",
}

// pointNouns name what a request did at a point.
var pointNouns = map[string]string{
	"after-check":           "key check",
	"after-claim":           "claim",
	"before-commit":         "charge",
	"after-commit":          "commit",
	"before-store-response": "stored response",
}

// hold tells the gate holding a request.
func (r *renderer) hold(u *unit) {
	g := r.s.gate
	where := holdPhrases[string(g.spec.Hold)]
	until := "until another request of the key is answered"
	if g.spec.Until != "" {
		until = "until another request of the key reaches " + string(g.spec.Until) + " or is answered"
	}
	r.say("the gate holds %s %s, %s", u.request(), where, until)
	r.draw("Note over %s: the gate holds %s %s", u.rid(), u.short(), where)
}

// resume tells why a held request goes on.
func (r *renderer) resume(st *step) {
	u := st.u
	if by := st.resume.by; by != nil && by.kind == resultStep {
		r.say("%s's answer opens the gate: %s goes on", by.u.request(), u.request())
		r.draw("Note over %s: %s's answer opens the gate, %s goes on", u.rid(), by.u.short(), u.short())
		return
	}
	if by := st.resume.by; by != nil {
		r.say("%s's %s opens the gate: %s goes on", by.u.request(), pointNouns[by.ev.Point], u.request())
		r.draw("Note over %s: %s's %s opens the gate, %s goes on", u.rid(), by.u.short(), pointNouns[by.ev.Point], u.short())
		return
	}
	if late := st.resume.late; late != nil {
		r.say("the gate's timeout runs out before %s's %s: %s goes on", late.request(), pointNouns[r.s.gate.racePoint()],
			u.request())
	} else {
		r.say("the gate stops waiting, no other request of the key got that far: %s goes on", u.request())
	}
	r.draw("Note over %s: the gate times out, %s goes on", u.rid(), u.short())
}
