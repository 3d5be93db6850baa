package check

import (
	"fmt"
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// The margins of a held duplicate (see the package comment).
const (
	// holdMin is the shortest wait judged a hold on the server's log: a
	// duplicate that arrived less than this before its original finished
	// may just have met the commit.
	holdMin = 20 * time.Millisecond
	// holdMinClient is the same on the client's timings, which also hold
	// the client's own scheduling: a stalled client reads every answer late
	// and at once, as if the server had held them (measured: up to 75 ms
	// under go test -race on 2 busy cores).
	holdMinClient = 100 * time.Millisecond
	// holdSlack, plus a quarter of the wait, is how far from the original's
	// end the held duplicate's answer may come and still be its release;
	// and how much before the original it may have arrived (sent together).
	holdSlack = 10 * time.Millisecond
	// holdStall, plus twice the service's measured charge time
	// (Input.ChargeTime), is the longest an original may take on the
	// client's timings for a wait on it to be judged a hold: longer, and
	// the client or its machine stalled, reading both answers late.
	holdStall = 50 * time.Millisecond
)

// span is one attempt's answer and the time it took, as the server logged
// it or, without a server view, as the client saw it.
type span struct {
	start, end time.Duration
	status     int
	charge     string
	replayed   bool
	replica    int
	// claimStart and claimEnd are when the target's claim on the key ran,
	// handled when it answered (zero: not in the server's log);
	// claimWaits whether that claim may wait on another request.
	claimStart, claimEnd, handled time.Duration
	claimWaits                    bool
	// harness is what the harness itself held the attempt inside the
	// target (Input.Held): not the service's time.
	harness time.Duration
	// late is when the client gave up, for an answer that came after
	// (Attempt.Late); zero: it came in time.
	late time.Duration
}

// own is how long the attempt took of the service's own time: its span
// without what the harness held it.
func (s span) own() time.Duration { return s.end - s.start - s.harness }

// claimLogged reports whether the server's log holds the span's claim.
func (s span) claimLogged() bool { return s.claimEnd > 0 }

// answered is when the target answered: its handler's return when the
// server logged it, else the span's end.
func (s span) answered() time.Duration {
	if s.handled > 0 {
		return s.handled
	}
	return s.end
}

// serverSpan is a's answer as the server logged it.
func serverSpan(a *history.Attempt) span {
	v := a.Server
	return span{start: v.Start, end: v.End, status: v.Status, charge: v.ChargeID, replayed: v.Replayed, replica: v.Replica,
		claimStart: v.ClaimStart, claimEnd: v.ClaimEnd, claimWaits: v.ClaimWaits, handled: v.Handled}
}

// clientSpan is a's answer as the client saw it, or, when it gave up
// first, as it came later on the connection left open (Attempt.Late);
// status 0 unless it was answered.
func clientSpan(a *history.Attempt) span {
	s := span{start: a.Call, end: a.Return, charge: a.ChargeID, replayed: a.Replayed, replica: a.Replica}
	switch {
	case a.Outcome == history.Acked || a.Outcome == history.Rejected:
		s.status = a.Status
	case a.Late != nil:
		s.end, s.status, s.charge, s.replayed, s.late = a.Late.At, a.Late.Status, a.Late.ChargeID, a.Late.Replayed, a.Return
	}
	return s
}

// spanOf is a's answer from the server log when viaServer, else from the
// client.
func spanOf(a *history.Attempt, viaServer bool) span {
	if viaServer {
		return serverSpan(a)
	}
	return clientSpan(a)
}

// heldDuplicates reports the key's held duplicates: same-payload attempts
// that arrived while the key's original was executing, waited until it
// finished and then got its 2xx, where the profile wants the in-flight
// status at once. chs are the key's charges; s holds the overlaps
// (markOverlaps).
func (c *checker) heldDuplicates(key string, atts []*history.Attempt, chs []*history.Charge, s *keyScratch) {
	if c.profile.InFlightWait || len(atts) < 2 {
		return
	}
	var known bool // o is the original of charge for payload fp (a key mostly has one of each)
	var charge, fp string
	var o *history.Attempt
	for pos, b := range atts {
		if b.Server != nil && s.partner[pos] < 0 {
			continue // no same-payload attempt was on the server with it: nothing held it
		}
		bs := answerOf(b)
		if !is2xx(bs.status) {
			continue
		}
		if !known || bs.charge != charge || b.Fingerprint != fp {
			known, charge, fp, o = true, bs.charge, b.Fingerprint, c.originalOf(bs.charge, b, atts, chs)
		}
		if o == nil || o == b || o.ID == b.ID || o.Fingerprint != b.Fingerprint {
			continue
		}
		viaServer := o.Server != nil && b.Server != nil
		if !viaServer && (!is2xx(clientSpan(b).status) || !is2xx(clientSpan(o).status)) {
			continue // no timings to compare: an answer the client never saw, and no server log
		}
		ot, bt := spanOf(o, viaServer), spanOf(b, viaServer)
		ot.harness = c.harnessHeld[o.ID]
		var wait time.Duration
		var ok bool
		if bt.claimLogged() {
			wait, ok = c.heldAtClaim(ot, bt)
		} else {
			wait = ot.end - bt.start
			ok = c.held(ot, bt, wait, viaServer)
		}
		if !ok {
			continue
		}
		if c.refuses(bt.replica) {
			continue // the replica refuses in-flight duplicates: this wait was the server busy
		}
		c.addHeld(key, b, o, bt, ot, wait, viaServer)
	}
}

// answerOf is a's answer as the server logged it, else as the client saw it.
func answerOf(a *history.Attempt) span {
	if a.Server != nil {
		return serverSpan(a)
	}
	return clientSpan(a)
}

// held applies the timing of a hold to original o and duplicate b: b
// arrived after o started (or with it, within holdSlack: released
// together, either may reach the server first), o finished within the
// claim timeout, b waited at least holdMin (holdMinClient on the client's
// timings) for it, and b was answered as o finished.
func (c *checker) held(o, b span, wait time.Duration, viaServer bool) bool {
	least := holdMin
	if !viaServer {
		least = holdMinClient
	}
	if b.start < o.start-holdSlack || wait < least {
		return false
	}
	if c.claimTime > 0 && o.end-o.start > c.claimTime {
		return false // the original outlived its claim: the claim timeout governs, not the 409
	}
	if !viaServer && c.chargeTime > 0 && o.own() > 2*c.chargeTime+holdStall {
		return false // far slower than the service charges, beyond what the harness held it: a stall, not a hold
	}
	d, slack := b.end-o.end, holdSlack+wait/4
	return d <= slack && -d <= slack
}

// heldAtClaim applies the timing of a hold to the claim of duplicate b,
// as the server logged it (b.claimLogged). A claim that cannot wait (a try) held nothing,
// however long its round trip took on a busy machine. One that may wait
// held b when its round trip began at least holdMin before original o was
// answered, lasted at least holdMin, ended after o's claim and within
// holdSlack plus a quarter of its length of o's answer, before or after
// (o's commit released it), and o finished within the claim timeout. A
// claim that began after o committed (a request stalled on a busy machine
// before it claimed) returns at once and is no hold, however late its
// answer. wait is the claim's length.
func (c *checker) heldAtClaim(o, b span) (wait time.Duration, ok bool) {
	wait = b.claimEnd - b.claimStart
	at := o.answered()
	if !b.claimWaits || wait < holdMin || b.claimStart > at-holdMin || b.claimEnd <= o.claimEnd {
		return wait, false
	}
	if c.claimTime > 0 && o.end-o.start > c.claimTime {
		return wait, false // the original outlived its claim: the claim timeout governs, not the 409
	}
	d, slack := b.claimEnd-at, holdSlack+wait/4
	return wait, d <= slack && -d <= slack
}

// originalOf returns the attempt of the key whose work the 2xx answers
// naming charge come from: the maker of charge in the ledger, else the
// attempt with b's payload that answered charge first without replaying it.
func (c *checker) originalOf(charge string, b *history.Attempt, atts []*history.Attempt, chs []*history.Charge) *history.Attempt {
	if charge != "" {
		if row := c.row(charge, chs); row.n == 1 && row.c.AttemptID != "" {
			if o := c.attempt(row.c.AttemptID, atts); o != nil && o.Key == b.Key {
				return o
			}
		}
	}
	return firstAnswer(b, charge, atts)
}

// firstAnswer returns the same-payload attempt of b's key answered 2xx with
// charge, not as a replay, that was answered first (nil: none).
func firstAnswer(b *history.Attempt, charge string, atts []*history.Attempt) *history.Attempt {
	var first *history.Attempt
	var firstEnd time.Duration
	for _, a := range atts {
		if a.Fingerprint != b.Fingerprint {
			continue
		}
		s := answerOf(a)
		if !is2xx(s.status) || s.replayed || s.charge != charge {
			continue
		}
		if first == nil || s.end < firstEnd {
			first, firstEnd = a, s.end
		}
	}
	return first
}

// refuses reports whether the run shows replica answering a keyed attempt
// with an in-flight status (as the server logged it, else as the client saw
// it): the profile's, or 409 Conflict or 425 Too Early, the source text's
// two, which status_contract flags where the profile wants the other. Such
// a target refuses in-flight duplicates, and a duplicate it answered late
// was slowed by something else. Computed once, on first use.
func (c *checker) refuses(replica int) bool {
	if c.refusals == nil {
		c.refusals = map[int]bool{}
		for _, a := range c.atts {
			if s := answerOf(a); c.refusal(s.status) && a.Key != "" {
				c.refusals[s.replica] = true
			}
		}
	}
	return c.refusals[replica]
}

// refusal reports whether status refuses a duplicate in flight: the
// profile's in-flight set, or one of the source text's two.
func (c *checker) refusal(status int) bool {
	return c.profile.IsInFlight(status) || status == http.StatusConflict || status == http.StatusTooEarly
}

// addHeld records a held_duplicate finding for b, held by original o.
func (c *checker) addHeld(key string, b, o *history.Attempt, bt, ot span, wait time.Duration, viaServer bool) {
	arrived := fmt.Sprintf("arrived %s after attempt %s began executing the key", duration(bt.start-ot.start), o.ID)
	if bt.start < ot.start {
		arrived = fmt.Sprintf("arrived with attempt %s (%s before it), which executed the key", o.ID, duration(ot.start-bt.start))
	}
	how := fmt.Sprintf("waited %s for it and got its %d (%s) %s", duration(wait), bt.status, chargeLabel(bt.charge), relative(bt.end-ot.end))
	if bt.late > 0 {
		how += fmt.Sprintf(", on the connection its client had given up on at %s", duration(bt.late))
	}
	if bt.claimLogged() { // the server's log, with b's claim
		how = fmt.Sprintf("its claim on the key waited %s and returned %s, then it got its %d (%s)",
			duration(wait), relative(bt.claimEnd-ot.answered()), bt.status, chargeLabel(bt.charge))
	}
	seen := "the server's log"
	if !viaServer {
		seen = "the client's timings"
	}
	c.add(rankHeldDuplicate, 1, Finding{
		Anomaly: HeldDuplicate, Key: key, Account: b.Account, Attempts: []string{b.ID, o.ID},
		Charges: appendUnique(nil, bt.charge),
		Detail: fmt.Sprintf("%s %s, %s; %s answers %s at once to a duplicate in flight (%s)",
			who(key, b), arrived, how, c.profileLabel(), c.profile.InFlightSet(), seen),
	})
}

// relative says when an instant d after the original finished was.
func relative(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return duration(d) + " after it finished"
	case d <= -time.Millisecond:
		return duration(-d) + " before it finished"
	}
	return "as it finished"
}
