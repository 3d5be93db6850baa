package check

import (
	"fmt"
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// missingKeyStatus checks the answer to a POST without a key: the profile's
// MissingKey status, or, when the profile allows such requests, anything but
// a 5xx.
func (c *checker) missingKeyStatus(a *history.Attempt) {
	if a.Status == 0 {
		return
	}
	p := c.profile
	var detail string
	switch {
	case p.MissingKey != 0 && a.Status != p.MissingKey:
		detail = fmt.Sprintf("%s got %d; %s answers %d to a request without a key",
			who("", a), a.Status, c.profileLabel(), p.MissingKey)
	case p.MissingKey == 0 && is5xx(a.Status):
		detail = fmt.Sprintf("%s got %d; %s allows requests without a key, so it must not fail them",
			who("", a), a.Status, c.profileLabel())
	default:
		return
	}
	c.add(rankStatusContract, 1, Finding{
		Anomaly: StatusContract, Account: a.Account, Attempts: []string{a.ID}, Detail: detail,
	})
}

// keyedStatus checks the status of an attempt that carried a key, reporting
// at most one violation per attempt: (b) a payload mismatch answered with a
// non-2xx outside the profile's mismatch and in-flight sets; (c) a
// duplicate in flight with another attempt of its payload answered what the
// profile never gives one (wrongInFlight); (d) a replay
// without the profile's replay header: a 2xx whose charge another attempt
// of the key made (replayOf), the key's first 2xx included; where the
// ledger cannot tell who made the charge, a 2xx sent after another 2xx of
// the key had come back.
func (c *checker) keyedStatus(key string, a, ref *history.Attempt, s *keyScratch, pos int, atts []*history.Attempt,
	chs []*history.Charge) {
	p := c.profile
	switch {
	case a.Fingerprint != ref.Fingerprint && a.Status != 0 && !is2xx(a.Status) && p.Mismatch != 0 &&
		!p.IsMismatch(a.Status) && !p.IsInFlight(a.Status):
		c.addStatus(key, a, ref, "", fmt.Sprintf("%s reused the key with another payload (%s) and got %d; %s answers %s (or %s while the first is in flight)",
			who(key, a), c.payloadVersus(a, ref), a.Status, c.profileLabel(), p.MismatchSet(), p.InFlightSet()))
	case a.Fingerprint == ref.Fingerprint && p.IsMismatch(a.Status) && a.Status != http.StatusBadRequest &&
		a.Status != p.MissingKey && !p.IsInFlight(a.Status): // a distinct mismatch status (ietf's 422), not any bad request
		c.addStatus(key, a, ref, "", fmt.Sprintf("%s sent the key's own payload (as attempt %s did) and got %d, %s's status for another payload: "+
			"the same request is replayed or executed, never refused as a mismatch", who(key, a), ref.ID, a.Status, c.profileLabel()))
	case s.partner[pos] >= 0 && c.wrongInFlight(a, atts[s.partner[pos]]):
		other := atts[s.partner[pos]]
		c.addStatus(key, a, other, "", fmt.Sprintf("%s %s, with no fault placed on it; %s answers %s at once to a duplicate in flight (%s)",
			who(key, a), c.inFlightWith(a, other), c.profileLabel(), c.profile.InFlightSet(), c.seen(a)))
	case p.ReplayHeader == "" || a.Replayed || a.Outcome != history.Acked || a.Fingerprint != ref.Fingerprint:
	default:
		maker, charge, byServer, known := c.replayOf(a, atts, chs)
		first := s.first[pos]
		switch {
		case known && maker != nil:
			how := "the ledger says attempt " + maker.ID + " made"
			if byServer {
				how = "the server had first answered to attempt " + maker.ID
			}
			c.addStatus(key, a, maker, charge, fmt.Sprintf("%s%s got %s, which %s, without the %s header that %s requires on every replay",
				who(key, a), replayNote(a), chargeLabel(charge), how, p.ReplayHeader, c.profileLabel()))
		case !known && first != nil && first.Return < a.Call:
			c.addStatus(key, a, first, a.ChargeID, fmt.Sprintf("%s%s replayed the 2xx (%s) first returned to attempt %s without the %s header that %s requires",
				who(key, a), replayNote(a), chargeLabel(a.ChargeID), first.ID, p.ReplayHeader, c.profileLabel()))
		}
	}
}

// replayOf says who made the charge a's 2xx names. known is false when
// the ledger cannot tell (no charge id, a row held twice or under another
// key, a row naming no attempt that no earlier server answer explains); else
// maker is the other attempt of the key that made it (a's 2xx was a
// replay) or nil (a made it). The maker is the ledger row's attempt; for
// a row naming none, an earlier attempt whose server answer named the
// charge without replaying it; for a ledger without charge ids, the
// attempt that made the key's charge of a's account and amount (byServer
// says the maker is known from its server answer). charge is the charge.
func (c *checker) replayOf(a *history.Attempt, atts []*history.Attempt, chs []*history.Charge) (maker *history.Attempt, charge string, byServer, known bool) {
	if c.noChargeIDs {
		var row *history.Charge
		for _, ch := range chs {
			if ch.Account != a.Account || ch.Amount != a.Amount || ch.AttemptID == "" {
				continue
			}
			if ch.AttemptID == a.ID {
				return nil, "", false, true
			}
			if row == nil {
				row = ch
			}
		}
		if row == nil {
			return nil, "", false, false
		}
		m, ok := c.madeBy(a, row.AttemptID, atts)
		return m, row.ID, false, ok
	}
	if a.ChargeID == "" {
		return nil, "", false, false
	}
	row := c.row(a.ChargeID, chs)
	if row.n != 1 || row.c.Key != a.Key {
		return nil, "", false, false // a lost ack, or another key's charge: judged elsewhere
	}
	if id := row.c.AttemptID; id != "" {
		m, ok := c.madeBy(a, id, atts)
		return m, a.ChargeID, false, ok
	}
	for _, b := range atts {
		if b != a && b.ID != a.ID && !b.Hidden && b.Server != nil && b.Server.ChargeID == a.ChargeID &&
			!b.Server.Replayed && startOf(b) < startOf(a) {
			return b, a.ChargeID, true, true
		}
	}
	return nil, "", false, false
}

// madeBy resolves the attempt id a ledger row names for a's charge: nil
// and known when it is a itself, the attempt when it is another of a's
// key, unknown otherwise (not in the history, or another key's).
func (c *checker) madeBy(a *history.Attempt, id string, atts []*history.Attempt) (*history.Attempt, bool) {
	if id == a.ID {
		return nil, true
	}
	m := c.attempt(id, atts)
	if m == nil || m.Key != a.Key {
		return nil, false
	}
	return m, true
}

// startOf is when the server began an attempt, or when the client sent it.
func startOf(a *history.Attempt) time.Duration {
	if a.Server != nil {
		return a.Server.Start
	}
	return a.Call
}

// addStatus records a status_contract finding for a, with other as the
// attempt it was judged against and charge, if any, as evidence.
func (c *checker) addStatus(key string, a, other *history.Attempt, charge, detail string) {
	c.add(rankStatusContract, 1, Finding{
		Anomaly: StatusContract, Key: key, Account: a.Account, Attempts: []string{a.ID, other.ID},
		Charges: appendUnique(nil, charge), Detail: detail,
	})
}

// wrongInFlight reports whether a, in flight with other (an attempt of its
// key and payload: overlap), got what the profile never answers a
// duplicate in flight, with no fault on it nor on a store link while it
// was in flight: a 5xx, or, beside an other that succeeded, an error
// status but the in-flight one (and 429, the client's own rate).
func (c *checker) wrongInFlight(a, other *history.Attempt) bool {
	if a.Fault != "" || c.inFault(a) {
		return false
	}
	switch {
	case is5xx(a.Status):
		return true
	case a.Status >= 400 && a.Status < 500:
		return !c.profile.IsInFlight(a.Status) && a.Status != http.StatusTooManyRequests && is2xx(answerOf(other).status)
	}
	return false
}

// inFault reports whether a was in flight while the harness had a store
// link of the target faulted (Input.Faulted).
func (c *checker) inFault(a *history.Attempt) bool {
	for _, w := range c.faulted {
		if a.Call <= w.To && w.From <= a.Return {
			return true
		}
	}
	return false
}

// inFlightWith says when a was in flight with other and what it got, on
// the timings their overlap was judged on (flight): "was sent 54ms into
// attempt o2-t1 of its payload (in flight from 1.20s to 1.41s) and got
// 503 at 1.39s".
func (c *checker) inFlightWith(a, other *history.Attempt) string {
	as, ae, _ := c.flight(a)
	os, oe, _ := c.flight(other)
	verb := "arrived"
	if a.Server == nil {
		verb = "was sent"
	}
	when := duration(as-os) + " into"
	if as < os {
		when = duration(os-as) + " before"
	}
	return fmt.Sprintf("%s %s attempt %s of its payload (in flight from %s to %s) and got %d at %s",
		verb, when, other.ID, duration(os), duration(oe), a.Status, duration(ae))
}

// seen names the timings a's overlaps were judged on.
func (c *checker) seen(a *history.Attempt) string {
	if a.Server == nil {
		return "the client's timings"
	}
	return "the server's log"
}
