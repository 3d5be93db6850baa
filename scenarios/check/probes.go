package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// isProbe reports whether a was sent once every fault had healed and every
// claim should have expired (History.Quiesced + ClaimTimeout or later).
func (c *checker) isProbe(a *history.Attempt) bool {
	return c.probes && a.Call >= c.probeFrom
}

// superseded reports whether atts[pos], a probe, was followed by another
// probe of its key: the engine sends a confirming probe to a key whose
// probe got the in-flight status or a 5xx (scenarios.ConfirmPlan), and
// the key is judged on its last probe. A poisoned key answers both alike;
// one that was only slow to recover (a stale pooled connection failing
// once more, a leftover transaction still holding the key's lock on a
// loaded machine) answers the last one.
func (c *checker) superseded(atts []*history.Attempt, pos int) bool {
	for _, b := range atts[pos+1:] {
		if c.isProbe(b) && !b.Hidden {
			return true
		}
	}
	return false
}

// stuckProbe reports whether atts[pos] is a probe answered with the
// profile's in-flight status while no other attempt of the key held the
// claim: a 409 is legitimate while the server is serving another attempt of
// the key that was not itself answered 409 (in groups larger than smallGroup,
// the overlapping same-payload attempt found by the sweep).
func (c *checker) stuckProbe(atts []*history.Attempt, s *keyScratch, pos int) bool {
	a := atts[pos]
	if !c.profile.IsInFlight(a.Status) || !c.isProbe(a) {
		return false
	}
	if len(atts) > smallGroup {
		p := s.partner[pos]
		return p < 0 || c.profile.IsInFlight(atts[p].Status)
	}
	for j, b := range atts {
		if j != pos && c.overlap(a, b) && !c.profile.IsInFlight(b.Status) {
			return false
		}
	}
	return true
}

// statusesOf are the statuses atts got, each once, in order.
func statusesOf(atts []*history.Attempt) api.Statuses {
	var out api.Statuses
	for _, a := range atts {
		if !out.Has(a.Status) {
			out = append(out, a.Status)
		}
	}
	return out
}

// stuckKey reports a key whose probes still got the in-flight status: its
// claim was never released. The evidence is the stuck probes and, when one
// can be identified, the attempt that left the claim behind: the key's last
// attempt before the probes that got a 5xx or no answer.
func (c *checker) stuckKey(key string, atts []*history.Attempt, s *keyScratch, reds []*history.RedisRecord) {
	var stuck []*history.Attempt
	var culprit *history.Attempt
	for pos, a := range atts {
		switch {
		case c.stuckProbe(atts, s, pos):
			stuck = append(stuck, a)
		case !c.isProbe(a) && (a.Status >= 500 || a.Status == 0 && a.Outcome == history.Indeterminate):
			culprit = a // atts are in call order: the last one wins
		}
	}
	first := stuck[0]
	f := Finding{Anomaly: StuckKey, Key: key, Account: first.Account, Attempts: make([]string, 0, len(stuck)+1)}
	names := make([]string, len(stuck))
	for i, a := range stuck {
		f.Attempts = append(f.Attempts, a.ID)
		names[i] = a.ID
	}
	var b strings.Builder
	b.WriteString(keyLabel(key))
	b.WriteString(": ")
	if len(stuck) == 1 {
		fmt.Fprintf(&b, "%s still got %d at %s", attemptName(first), first.Status, duration(first.Call))
	} else {
		fmt.Fprintf(&b, "attempts %s still got %s, the first at %s", list(names), statusesOf(stuck), duration(first.Call))
	}
	fmt.Fprintf(&b, ", %s after the faults healed (claim timeout %s)",
		duration(first.Call-c.quiesced), duration(c.claimTime))
	if culprit != nil {
		f.Attempts = appendUnique(f.Attempts, culprit.ID)
		fmt.Fprintf(&b, "; %s left the claim behind when it %s at %s",
			attemptName(culprit), answer(culprit), duration(culprit.Call))
	}
	for _, r := range reds {
		if !r.Done {
			fmt.Fprintf(&b, "; Redis still holds its in-flight claim%s", ttlLabel(r.TTL))
			break
		}
	}
	b.WriteString(": the key is poisoned")
	f.Detail = b.String()
	c.add(rankStuckKey, 1, f)
}

// cachedError judges atts[pos], a 5xx that was replayed (the replay header
// was present) or served to a probe. A profile that forbids replaying
// errors never allows it; a profile that allows it does so only for a key
// whose work committed nothing, so the 5xx counts when the ledger holds a
// charge for the key. chs are the key's charges.
func (c *checker) cachedError(key string, pos int, atts []*history.Attempt, chs []*history.Charge) {
	if c.profile.ReplayErrors && len(chs) == 0 {
		return
	}
	a := atts[pos]
	f := Finding{Anomaly: CachedError, Key: key, Account: a.Account, Attempts: []string{a.ID}}
	var b strings.Builder
	fmt.Fprintf(&b, "%s got %d", who(key, a), a.Status)
	if a.Replayed {
		b.WriteString(" served from the key's stored response")
		if o := origin(atts, pos); o != nil {
			f.Attempts = append(f.Attempts, o.ID)
			fmt.Fprintf(&b, " (first returned to attempt %s)", o.ID)
		}
		if c.isProbe(a) {
			fmt.Fprintf(&b, ", as a probe %s after the faults healed", duration(a.Call-c.quiesced))
		}
	} else {
		fmt.Fprintf(&b, " as a probe, %s after the faults healed (claim timeout %s), so the key's stored error was served again",
			duration(a.Call-c.quiesced), duration(c.claimTime))
	}
	for _, ch := range chs {
		f.Charges = appendUnique(f.Charges, ch.ID)
	}
	if c.profile.ReplayErrors {
		fmt.Fprintf(&b, "; %s replays a 5xx only for a key whose work committed nothing, but the ledger holds %s for it",
			c.profileLabel(), list(f.Charges))
	} else {
		fmt.Fprintf(&b, "; %s never replays a 5xx: the key is poisoned", c.profileLabel())
		if len(f.Charges) > 0 {
			fmt.Fprintf(&b, ", and the ledger even holds %s for it", list(f.Charges))
		}
	}
	f.Detail = b.String()
	c.add(rankCachedError, 1, f)
}

// freshFailure reports whether atts[pos], a 5xx without the replay header,
// is the service failing again, not a stored error served again: it has a
// body, and no earlier attempt of the key was answered that status with
// that body. A stored response is served byte for byte; a stale pooled
// connection failing once more after the faults healed ("begin: conn
// closed" where the charge had failed at "commit: conn closed") is not one.
func freshFailure(atts []*history.Attempt, pos int) bool {
	a := atts[pos]
	if a.Body == "" {
		return false
	}
	for _, b := range atts[:pos] {
		if b.Status == a.Status && b.Body == a.Body {
			return false
		}
	}
	return true
}

// origin returns the attempt that first got the status replayed to
// atts[pos]: the latest earlier attempt of the key, not itself a replay,
// answered with that status; nil if there is none.
func origin(atts []*history.Attempt, pos int) *history.Attempt {
	status := atts[pos].Status
	for i := pos - 1; i >= 0; i-- {
		if a := atts[i]; a.Status == status && !a.Replayed {
			return a
		}
	}
	return nil
}

// attemptName names an attempt inside a sentence.
func attemptName(a *history.Attempt) string {
	if a.Hidden {
		return "hidden re-sent attempt " + a.ID
	}
	return "attempt " + a.ID
}

// answer describes how an attempt ended: "got 503", "got no answer (timeout)".
func answer(a *history.Attempt) string {
	if a.Status != 0 {
		return fmt.Sprintf("got %d", a.Status)
	}
	if a.Err != "" {
		return "got no answer (" + a.Err + ")"
	}
	return "got no answer"
}

// ttlLabel describes a Redis record's remaining time to live.
func ttlLabel(ttl time.Duration) string {
	switch {
	case ttl < 0:
		return ", with no expiry"
	case ttl > 0:
		return ", expiring in " + duration(ttl)
	}
	return ""
}
