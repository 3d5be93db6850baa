package check

import (
	"cmp"
	"fmt"
	"net/http"
	"strings"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// declined judges a key that was declined: once an attempt carrying the
// key's reference fingerprint was answered the business refusal
// (api.StatusDeclined), the key is completed with that refusal, as a
// charged key is with its 2xx. Every other same-payload attempt that got
// a completed answer must get that refusal again (the same status, and
// the body as replays are compared), and the ledger must hold no charge
// for the key. Answers that are not a completed result are not judged:
// no answer, a 5xx (a technical failure, which says nothing about the
// charge), the profile's in-flight status and 429 (the key or the server
// was busy). Nor is an attempt that started more than the key's TTL after
// the refusal ended (or a charge it made): the key had expired, and it is
// a new request. Under a profile that decides refusals again
// (api.Profile.RedecideRefusals) every finding is a deviation the profile
// documents, reported apart and never counted.
//
// A retry the key's in-flight status turned away while nothing of the key
// was in flight is a stuck key (stuckAfterRefusal), unless its probes
// already showed one (stuck).
func (c *checker) declined(key string, atts []*history.Attempt, chs []*history.Charge, ref *history.Attempt, stuck bool) {
	first := firstRefusal(atts, ref.Fingerprint)
	if first == nil {
		return
	}
	if !stuck {
		c.stuckAfterRefusal(key, atts, first)
	}
	told := map[string]bool{}
	for _, a := range atts {
		if a == first || a.Fingerprint != ref.Fingerprint || !c.withinRefusal(first, a) {
			continue
		}
		made := chargesBy(a.ID, chs)
		differs, why := false, ""
		if !a.Hidden && c.completedAnswer(a.Status) {
			differs, why = c.otherAnswer(a, first)
		}
		if !differs && len(made) == 0 {
			continue
		}
		for _, ch := range made {
			told[ch.ID] = true
		}
		c.addRefusal(key, a, first, made, c.answeredOtherwise(key, a, first, why, made))
	}
	for _, ch := range chs {
		if told[ch.ID] {
			continue
		}
		maker := c.attempt(ch.AttemptID, atts)
		if ch.AttemptID != "" && maker != nil && (maker.Fingerprint != ref.Fingerprint || !c.withinRefusal(first, maker)) {
			continue // another payload's charge (mismatch_executed), or one made after the key expired
		}
		by := "an unrecorded attempt"
		if ch.AttemptID != "" {
			by = "attempt " + ch.AttemptID
		}
		detail := fmt.Sprintf("%s: the ledger holds charge %s (%s on account %s, by %s), but the key was declined with %d to attempt %s%s",
			keyLabel(key), ch.ID, Money(ch.Amount), ch.Account, by, first.Status, first.ID, c.refusalRule())
		f := Finding{Anomaly: RefusalNotReplayed, Key: key, Account: ch.Account, Money: ch.Amount,
			Attempts: appendUnique([]string{first.ID}, ch.AttemptID), Charges: []string{ch.ID}, Detail: detail}
		c.reportRefusal(f)
	}
}

// firstRefusal is the first declined answer (by return time) among the
// key's attempts with fingerprint fp, or nil.
func firstRefusal(atts []*history.Attempt, fp string) *history.Attempt {
	var first *history.Attempt
	for _, a := range atts {
		if a.Hidden || a.Status != api.StatusDeclined || a.Fingerprint != fp {
			continue
		}
		if first == nil || cmp.Compare(a.Return, first.Return) < 0 {
			first = a
		}
	}
	return first
}

// withinRefusal reports whether a started within the key's retention
// after the refusal ended (always, when keys do not expire).
func (c *checker) withinRefusal(first, a *history.Attempt) bool {
	if c.keyTTL <= 0 {
		return true
	}
	end := first.Return
	if first.Server != nil {
		end = first.Server.End
	}
	return startOf(a)-end <= c.keyTTL
}

// completedAnswer reports whether a status is a completed result that a
// retry of a completed key must repeat: a 2xx or a 4xx, but not the
// in-flight status nor 429 (busy, not decided).
func (c *checker) completedAnswer(status int) bool {
	return is2xx(status) || status/100 == 4 && !c.profile.IsInFlight(status) && status != http.StatusTooManyRequests
}

// otherAnswer reports whether a's answer differs from the refusal first
// got, and how ("" when the status alone says it).
func (c *checker) otherAnswer(a, first *history.Attempt) (bool, string) {
	if a.Status != first.Status {
		return true, ""
	}
	if a.Body == first.Body {
		return false, ""
	}
	same, why := c.replay.sameBody(a.Body, first.Body, &c.firstDoc)
	return !same, why
}

// chargesBy lists the charges of chs made by attempt id.
func chargesBy(id string, chs []*history.Charge) []*history.Charge {
	var out []*history.Charge
	for _, ch := range chs {
		if ch.AttemptID != "" && ch.AttemptID == id {
			out = append(out, ch)
		}
	}
	return out
}

// answeredOtherwise is the detail of an attempt of a declined key that got
// another answer (why says how the body differs) or charged (made).
func (c *checker) answeredOtherwise(key string, a, first *history.Attempt, why string, made []*history.Charge) string {
	var b strings.Builder
	b.WriteString(who(key, a) + replayNote(a))
	switch {
	case is2xx(a.Status):
		fmt.Fprintf(&b, " got %d (%s)", a.Status, chargeLabel(a.ChargeID))
	case a.Status == first.Status && a.Status != 0:
		fmt.Fprintf(&b, " got %d with another body (%s)", a.Status, why)
	case a.Status != 0 && c.completedAnswer(a.Status):
		fmt.Fprintf(&b, " got %d", a.Status)
	default:
		fmt.Fprintf(&b, " (%s)", answer(a))
	}
	if len(made) > 0 {
		ids := make([]string, len(made))
		var money int64
		for i, ch := range made {
			ids[i], money = ch.ID, money+ch.Amount
		}
		fmt.Fprintf(&b, " and was charged %s (%s)", list(ids), Money(money))
	}
	fmt.Fprintf(&b, " after the key was declined with %d to attempt %s%s", first.Status, first.ID, c.refusalRule())
	return b.String()
}

// refusalRule ends a refusal finding's sentence with the rule it breaks,
// or, under a profile that decides refusals again, with why it is allowed.
func (c *checker) refusalRule() string {
	if c.profile.RedecideRefusals {
		return fmt.Sprintf(": %s decides a declined key again, by design (a documented deviation)", c.profileLabel())
	}
	return ": a declined charge is a completed result, answered its refusal on every retry and never charged"
}

// addRefusal records the finding about attempt a of a declined key.
func (c *checker) addRefusal(key string, a, first *history.Attempt, made []*history.Charge, detail string) {
	f := Finding{Anomaly: RefusalNotReplayed, Key: key, Account: a.Account, Attempts: []string{a.ID, first.ID}, Detail: detail}
	f.Charges = appendUnique(nil, a.ChargeID)
	for _, ch := range made {
		f.Money += ch.Amount
		f.Charges = appendUnique(f.Charges, ch.ID)
	}
	c.reportRefusal(f)
}

// reportRefusal counts a refusal finding, or keeps it as a deviation when
// the profile allows it.
func (c *checker) reportRefusal(f Finding) {
	if c.profile.RedecideRefusals {
		c.deviations = append(c.deviations, f)
		return
	}
	c.add(rankRefusalNotReplayed, 1, f)
}

// stuckAfterRefusal reports a stuck key: attempts of a declined key that
// reached the server after the refusal was answered and got the profile's
// in-flight status while no other attempt of the key was on the server
// (none but others turned away alike). The refusal completed the key; a
// claim that still turns retries away was never released with the work
// (a lock that belongs to the connection's session, not to the
// transaction, returned to the pool with it). Judged on the server's log
// only: the client's timings cannot tell a service still at work on a
// request its client gave up.
func (c *checker) stuckAfterRefusal(key string, atts []*history.Attempt, first *history.Attempt) {
	if first.Server == nil {
		return
	}
	var stuck []*history.Attempt
	for _, a := range atts {
		if a.Hidden || a.Server == nil || !c.profile.IsInFlight(a.Status) || a.Server.Start < first.Server.End || !c.withinRefusal(first, a) {
			continue
		}
		if c.aloneOnServer(a, atts) {
			stuck = append(stuck, a)
		}
	}
	if len(stuck) == 0 {
		return
	}
	f := Finding{Anomaly: StuckKey, Key: key, Account: first.Account}
	names := make([]string, len(stuck))
	for i, a := range stuck {
		f.Attempts, names[i] = append(f.Attempts, a.ID), a.ID
	}
	f.Attempts = append(f.Attempts, first.ID)
	got := "attempt " + names[0] + " still got"
	if len(names) > 1 {
		got = "attempts " + list(names) + " still got"
	}
	f.Detail = fmt.Sprintf("%s: declined with %d to attempt %s (answered at %s on replica %d); %s %s, the first at %s on replica %d, "+
		"though no other request of the key was on the server: the claim outlived the work that declined it, and the key is poisoned",
		keyLabel(key), first.Status, first.ID, duration(first.Server.End), first.Server.Replica, got, statusesOf(stuck),
		duration(stuck[0].Server.Start), stuck[0].Server.Replica)
	c.add(rankStuckKey, 1, f)
}

// aloneOnServer reports whether no other attempt of the key overlapped a
// on the server, but ones turned away with the in-flight status as well.
func (c *checker) aloneOnServer(a *history.Attempt, atts []*history.Attempt) bool {
	for _, b := range atts {
		if b == a || b.Server == nil || c.profile.IsInFlight(b.Status) {
			continue
		}
		if b.Server.Start <= a.Server.End && a.Server.Start <= b.Server.End {
			return false
		}
	}
	return true
}
