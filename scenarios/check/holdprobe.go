package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// HoldProbes is what the hold probes of a run showed (Attempt.HoldProbe):
// pairs of a key's first request A and its duplicate B, sent while A was
// in flight.
type HoldProbes struct {
	Pairs   int `json:"pairs"`
	Held    int `json:"held"`    // B got A's 2xx only once A was answered
	Refused int `json:"refused"` // B got the in-flight status at once
	// Failed counts the pairs in which a request got, while the other was
	// in flight, what the profile never answers a duplicate in flight (a
	// 5xx: wrongInFlight): decided, each a status_contract finding.
	Failed    int `json:"failed,omitempty"`
	Undecided int `json:"undecided"` // the rest, for the reasons below
	// Why the undecided pairs decided nothing: A was answered before B
	// was sent (Early); A or B got no answer (Unanswered); A was not
	// accepted (FirstFailed: a 4xx, or a 5xx of a fault). The others got
	// a 2xx whose timing shows no hold (B met A's commit).
	Early       int `json:"early,omitempty"`
	Unanswered  int `json:"unanswered,omitempty"`
	FirstFailed int `json:"first_failed,omitempty"`
	// FirstSlowest is the longest a first request of an undecided pair
	// took to be answered (0: none was): a service that answers every
	// first request faster than a duplicate can be placed beside it
	// cannot be probed for holds.
	FirstSlowest time.Duration `json:"first_slowest_ns,omitempty"`
}

// outcome is how a hold-probe pair ended, as the checker judged it.
type outcome int

const (
	pairOther outcome = iota // undecided: a 2xx whose timing shows no hold
	pairHeld
	pairRefused
	pairFailed
	pairEarly
	pairUnanswered
	pairFirstFailed
)

// pairing is one hold-probe pair, as the checker judged it.
type pairing struct {
	key        string
	first, dup *history.Attempt
	outcome    outcome
}

// holdProbe records the hold-probe pair of key (its attempts are the
// pair's, in call order) for judging with the others (judgeHoldProbes).
func (c *checker) holdProbe(key string, atts []*history.Attempt) {
	if len(atts) != 2 {
		return
	}
	a, b := atts[0], atts[1]
	p := pairing{key: key, first: a, dup: b}
	switch {
	case a.Status != 0 && b.Call >= a.Return:
		p.outcome = pairEarly // nothing in flight to wait on
	case c.overlap(a, b) && (c.wrongInFlight(b, a) || c.wrongInFlight(a, b)):
		p.outcome = pairFailed
	case a.Status == 0 || b.Status == 0:
		p.outcome = pairUnanswered
	case a.Outcome != history.Acked:
		p.outcome = pairFirstFailed
	case c.profile.IsInFlight(b.Status):
		p.outcome = pairRefused
	case b.Outcome == history.Acked && b.ChargeID == a.ChargeID && b.Return-b.Call >= holdMin && releasedBy(a, b):
		p.outcome = pairHeld
	}
	c.pairs = append(c.pairs, p)
}

// releasedBy reports whether dup's answer came as first's did: within
// holdSlack plus a quarter of dup's wait of it, before or after, as the
// held-duplicate rule asks. An answer much later was slowed by something
// else (a duplicate that reached the service's key check only after the
// first had finished, and replayed at once).
func releasedBy(first, dup *history.Attempt) bool {
	d, slack := dup.Return-first.Return, holdSlack+(dup.Return-dup.Call)/4
	return d <= slack && -d <= holdSlack
}

// judgeHoldProbes counts the pairs and reports the held duplicates: each
// pair whose duplicate was held, unless some duplicate of the run was
// refused in flight (a service that refuses in-flight duplicates holds
// none: a late 2xx there was the machine's stall, not the service).
func (c *checker) judgeHoldProbes() {
	if len(c.pairs) == 0 {
		return
	}
	slices.SortFunc(c.pairs, func(x, y pairing) int { return int(x.first.Call - y.first.Call) })
	h := &HoldProbes{Pairs: len(c.pairs)}
	for _, p := range c.pairs {
		switch p.outcome {
		case pairRefused:
			h.Refused++
		case pairHeld:
			h.Held++
		case pairFailed:
			h.Failed++
		default:
			h.Undecided++
			switch p.outcome {
			case pairEarly:
				h.Early++
			case pairUnanswered:
				h.Unanswered++
			case pairFirstFailed:
				h.FirstFailed++
			}
			if p.first.Outcome == history.Acked {
				h.FirstSlowest = max(h.FirstSlowest, p.first.Return-p.first.Call)
			}
		}
	}
	c.holds = h
	if h.Refused > 0 || c.profile.InFlightWait {
		return
	}
	for _, p := range c.pairs {
		if p.outcome == pairHeld {
			c.addProbeHeld(p, h)
		}
	}
}

// addProbeHeld records a held_duplicate of a hold-probe pair.
func (c *checker) addProbeHeld(p pairing, h *HoldProbes) {
	a, b := p.first, p.dup
	wait := b.Return - b.Call
	f := Finding{Anomaly: HeldDuplicate, Key: p.key, Account: b.Account, Attempts: []string{b.ID, a.ID}, Charges: appendUnique(nil, a.ChargeID)}
	f.Detail = fmt.Sprintf("%s: hold probe %s, sent %s after its key's first request %s while it was in flight, waited %s and got its 2xx "+
		"(%s) %s after %s was answered; %s answers %s at once to a duplicate in flight (the hold probes: %d of %d pairs held, none refused)",
		keyLabel(p.key), b.ID, duration(b.Call-a.Call), a.ID, duration(wait), chargeLabel(a.ChargeID), duration(max(b.Return-a.Return, 0)),
		a.ID, c.profileLabel(), c.profile.InFlightSet(), h.Held, h.Pairs)
	c.add(rankHeldDuplicate, 1, f)
}

// holdProbeAttempts reports whether the key's attempts are a hold-probe
// pair.
func holdProbeAttempts(atts []*history.Attempt) bool {
	return len(atts) > 0 && atts[0].HoldProbe
}
