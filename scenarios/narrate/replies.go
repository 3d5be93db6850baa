package narrate

import (
	"fmt"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// clientGot reports whether the unit's client received the server's answer.
func (u *unit) clientGot() bool {
	a := u.last()
	return a.Server != nil && a.Status != 0 && a.Status == a.Server.Status && a.Fault != workload.DropResponse
}

// gaveUp reports whether the unit's client stopped waiting before the
// server answered: a client timeout inside the server's work. A try whose
// answer is dropped counts only when its client timed out (the broken
// connection, not the timeout, may end it the moment the server does).
func (u *unit) gaveUp() bool {
	a := u.last()
	return a.Server != nil && a.Status == 0 && a.Return < a.Server.End && (a.Fault != workload.DropResponse || a.TimedOut())
}

// answer tells the server's answer when the client's result does not say it
// all: an answer decided at the key check, a replay, or one the client never
// saw.
func (r *renderer) answer(u *unit) {
	got := u.clientGot()
	if len(u.events) > 0 && got && !u.first().Server.Replayed {
		return
	}
	text, msg := r.s.answerText(u)
	arrow := "-->>"
	switch {
	case got:
		r.arrow[u] = true
	case u.first().Hidden:
		text += ", to a re-send its client never made"
		arrow, msg = "--x", msg+", nobody waits"
	case u.last().Fault == workload.DropResponse && !u.gaveUp():
		text += ", but Toxiproxy drops the answer"
		arrow, msg = "--x", msg+", dropped"
	case u.last().Fault == workload.DropResponse:
		text += ", too late: its client has stopped waiting (and Toxiproxy drops the answer)"
		arrow, msg = "--x", msg+", too late, dropped"
	default:
		text += ", too late: its client has stopped waiting"
		arrow, msg = "--x", msg+", too late"
	}
	r.say("%s", text)
	r.draw("%s%s%s: %s", u.rid(), arrow, u.mid(), msg)
}

// answerText is the line and the diagram message of a server's answer.
func (s *story) answerText(u *unit) (string, string) {
	srv := u.first().Server
	rep, req, key, st := u.replica(), u.request(), short(s.key), status(srv.Status)
	charge, code := s.charge(srv.ChargeID), srv.Status
	switch o := s.heldBy[u]; {
	case srv.Replayed && is2xx(code) && o != nil:
		return fmt.Sprintf("%s held %s until %s finished, then finds key %s completed and replays the stored answer: %s (%s)",
				rep, req, o.request(), key, st, charge),
			fmt.Sprintf("%d %s, replayed after waiting for %s", code, charge, o.short())
	case srv.Replayed && is2xx(code):
		return fmt.Sprintf("%s finds key %s completed and replays the stored answer to %s: %s (%s)", rep, key, req, st, charge),
			fmt.Sprintf("%d %s, replayed", code, charge)
	case srv.Replayed && code == api.StatusDeclined:
		return fmt.Sprintf("%s finds key %s completed and replays the stored refusal to %s: %s, declined", rep, key, req, st),
			fmt.Sprintf("%d declined, replayed", code)
	case code == api.StatusDeclined:
		return fmt.Sprintf("%s declines %s: %s, insufficient funds", rep, req, st), fmt.Sprintf("%d declined", code)
	case srv.Replayed:
		return fmt.Sprintf("%s replays a stored %s to %s: a cached error", rep, st, req), fmt.Sprintf("%d replayed", code)
	case s.profile.IsInFlight(code) && s.strandedBy(u):
		return fmt.Sprintf("%s answers %s to %s: key %s is in flight, it says, though nothing of it is: a claim outlived the work that took it",
			rep, st, req, key), fmt.Sprintf("%d in flight, nothing is", code)
	case s.profile.IsInFlight(code):
		return fmt.Sprintf("%s answers %s to %s: key %s is in flight", rep, st, req, key), fmt.Sprintf("%d in flight", code)
	case s.key != "" && s.profile.IsMismatch(code):
		return fmt.Sprintf("%s refuses %s with %s: key %s was used with another request body", rep, req, st, key),
			fmt.Sprintf("%d another body", code)
	case s.key == "" && code == s.profile.MissingKey:
		return fmt.Sprintf("%s refuses %s with %s: it carries no Idempotency-Key", rep, req, st), fmt.Sprintf("%d no key", code)
	case code >= 500:
		return fmt.Sprintf("%s answers %s to %s: a store failed", rep, st, req), fmt.Sprint(code)
	case is2xx(code):
		return fmt.Sprintf("%s answers %s to %s (%s)", rep, st, req, charge), fmt.Sprintf("%d %s", code, charge)
	}
	return fmt.Sprintf("%s answers %s to %s", rep, st, req), fmt.Sprint(code)
}

// result tells what the client learned.
func (r *renderer) result(u *unit) {
	a := u.last()
	if a.Hidden {
		return // nobody waits for a re-send the client never made
	}
	switch {
	case a.Outcome == history.NotSent:
		r.say("%s cannot connect: the request is not sent", u.client())
		r.draw("Note over %s: not sent", u.mid())
	case a.Fault == workload.DropResponse && !u.clientGot() && !u.gaveUp():
		r.say("%s never sees the answer: Toxiproxy dropped it, so for the client the outcome is unknown", u.client())
		r.draw("Note over %s: no answer, outcome unknown", u.mid())
	case a.Status == 0:
		r.say("%s gives up waiting: no answer in time, so for the client the outcome is unknown", u.client())
		r.draw("Note over %s: timeout, outcome unknown", u.mid())
	default:
		r.got(u, a)
	}
}

// got tells a client receiving a status.
func (r *renderer) got(u *unit, a history.Attempt) {
	text := fmt.Sprintf("%s gets %s", u.client(), status(a.Status))
	msg := fmt.Sprint(a.Status)
	switch {
	case is2xx(a.Status) && a.Server != nil && a.Server.Replayed:
		text += fmt.Sprintf(" (%s, replayed)", r.s.charge(a.ChargeID))
		msg += " " + r.s.charge(a.ChargeID) + ", replayed"
	case is2xx(a.Status):
		text += fmt.Sprintf(" (%s)", r.s.charge(a.ChargeID))
		msg += " " + r.s.charge(a.ChargeID)
	case a.Status >= 500:
		text += ", which says nothing about the charge"
	case a.Status == api.StatusDeclined && a.Server != nil && a.Server.Replayed:
		text += ": declined, replayed"
		msg += " declined, replayed"
	case a.Status == api.StatusDeclined:
		text += ": declined"
		msg += " declined"
	}
	if u.collapsed() && retried(a.Status, r.s.profile) && u.op.plan != nil && u.op.plan.MaxTries > 1 {
		text += ", and the same again on each retry while that lasts"
	}
	r.say("%s", text)
	if !r.arrow[u] {
		r.draw("%s-->>%s: %s", u.rid(), u.mid(), msg)
	}
}

func is2xx(code int) bool { return code >= 200 && code < 300 }

// retried reports whether the client retries an answer: a status of the
// profile's in-flight set or a 5xx; a definitive answer (a 2xx, a
// refusal) ends its op.
func retried(code int, p api.Profile) bool { return p.IsInFlight(code) || code >= 500 }
