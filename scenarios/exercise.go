package scenarios

import (
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// Exercise is what a scenario is about, as one fact of a run: the
// dangerous interleaving happened (duplicates overlapped on the server, a
// retry followed an answer lost after the server had it, a retry crossed
// the claim TTL, ...). A run may pass without it (the "sometimes" of a
// seeded search); a cell whose seeds never exercised it proves nothing
// (Cover).
type Exercise struct {
	// What names the fact, to be read after "exercised: ".
	What string
	// Seen reports whether the run exercised it.
	Seen func(o Observation) bool
}

// exercise is the fact of the scenario for the run, and whether it
// happened; What "" when the scenario has none.
func exercise(sc Scenario, o Observation) (string, bool) {
	if sc.Exercise.Seen == nil {
		return "", false
	}
	return sc.Exercise.What, sc.Exercise.Seen(o)
}

// The exercise facts of the catalog.
var (
	exOverlap = Exercise{What: "same-key requests in flight together on the server",
		Seen: overlapped}
	exInFlight = Exercise{What: "a retry met its key still in flight",
		Seen: metInFlight}
	exGate = Exercise{What: "the gate held a request until the other was answered",
		Seen: func(o Observation) bool { return o.GateHeld > 0 }}
	exHidden = Exercise{What: "a retry after an answer the client never got",
		Seen: func(o Observation) bool { return retriedAfterHidden(o, false) }}
	exCommitted = Exercise{What: "a retry after a charge that committed unheard",
		Seen: func(o Observation) bool { return retriedAfterHidden(o, true) }}
	exOtherReplica = Exercise{What: "a retry on another replica after a lost answer",
		Seen: retriedElsewhere}
	exCrossedTTL = Exercise{What: "a retry reached the server after the claim TTL, the first try still running",
		Seen: crossedClaim}
	exMismatch = Exercise{What: "a changed-payload retry answered",
		Seen: mismatchAnswered}
	exKeyless = Exercise{What: "a request without a key answered",
		Seen: keylessAnswered}
	exExpired = Exercise{What: "a retry sent after its key's TTL",
		Seen: afterKeyTTL}
	exDeclined = Exercise{What: "a declined key sent again and answered",
		Seen: declinedRetried}
	exStandbyBehind = Exercise{What: "a retry of a completed key while the standby was behind",
		Seen: func(o Observation) bool { return assumeStandbyBehind(o) == nil }}
	exFailedOver = Exercise{What: "a retry after Sentinel promoted a replica that lost acknowledged writes",
		Seen: retriedAfterFailover}
	exCrashLost = Exercise{What: "a crash right after a commit lost what was committed asynchronously",
		Seen: func(o Observation) bool { return o.Replication != nil && o.Replication.CanariesLost > 0 }}
)

// overlapped: two same-key requests were in flight together.
func overlapped(o Observation) bool { return assumeOverlap(o) == nil }

// span is when an attempt was in flight: on the server when it logged the
// attempt, else (a user's service) as the client saw it; ok false if it
// never reached anyone.
func span(a *history.Attempt) (start, end time.Duration, ok bool) {
	switch {
	case a.Server != nil:
		return a.Server.Start, a.Server.End, true
	case a.Outcome != history.NotSent:
		return a.Call, a.Return, true
	}
	return 0, 0, false
}

// byKey groups the keyed attempts that reached the target, by key, in
// history order.
func byKey(o Observation) map[string][]*history.Attempt {
	out := map[string][]*history.Attempt{}
	for i := range o.History.Attempts {
		a := &o.History.Attempts[i]
		if _, _, ok := span(a); ok && a.Key != "" && !a.ReplayProbe && !a.HoldProbe {
			out[a.Key] = append(out[a.Key], a)
		}
	}
	return out
}

// unheard reports whether the attempt reached the target and its client
// got no answer; committed also wants its charge in the ledger.
func unheard(a *history.Attempt, committed bool) bool {
	if a.Outcome != history.Indeterminate {
		return false
	}
	return !committed || a.Applied != nil && *a.Applied
}

// anyPair reports whether two tries of one key, a then a later b (in
// history order), satisfy pair.
func anyPair(o Observation, pair func(a, b *history.Attempt) bool) bool {
	for _, tries := range byKey(o) {
		for i, a := range tries {
			for _, b := range tries[i+1:] {
				if pair(a, b) {
					return true
				}
			}
		}
	}
	return false
}

// retriedAfterHidden: a later try of a key reached the target after one
// whose answer its client never got (committed: whose charge committed, as
// far as the ledger says: a user's ledger naming no attempt does not).
func retriedAfterHidden(o Observation, committed bool) bool {
	committed = committed && !o.Ledger.NoAttemptIDs
	return anyPair(o, func(a, b *history.Attempt) bool { return unheard(a, committed) && b.Call > a.Call })
}

// retriedElsewhere: a later try of a key went to another replica than the
// one whose answer was lost.
func retriedElsewhere(o Observation) bool {
	return anyPair(o, func(a, b *history.Attempt) bool {
		return unheard(a, false) && b.Call > a.Call && b.Replica != a.Replica
	})
}

// metInFlight: a retry was in flight on the server together with an
// earlier try of its key; a user's service, whose server side is not seen,
// had a retry sent after a try its client gave up on.
func metInFlight(o Observation) bool {
	if !serverSeen(o) {
		return retriedAfterHidden(o, false)
	}
	return overlapped(o)
}

// crossedClaim: a try of a key reached the server more than the claim TTL
// after an earlier try of it had, while that one was still running; for a
// user's service, whose server side is not seen, more than the claim TTL
// after a try its client gave up on.
func crossedClaim(o Observation) bool {
	ttl := o.History.ClaimTimeout
	return ttl > 0 && anyPair(o, func(a, b *history.Attempt) bool {
		as, ae, _ := span(a)
		bs, _, _ := span(b)
		running := bs < ae
		if a.Server == nil {
			running = unheard(a, false)
		}
		return bs-as > ttl && running
	})
}

// mismatchAnswered: a key was answered for two different payloads.
func mismatchAnswered(o Observation) bool {
	return anyPair(o, func(a, b *history.Attempt) bool {
		return a.Status != 0 && b.Status != 0 && a.Fingerprint != b.Fingerprint
	})
}

// keylessAnswered: a request without a key got an answer.
func keylessAnswered(o Observation) bool {
	for _, a := range o.History.Attempts {
		if a.Key == "" && a.Status != 0 {
			return true
		}
	}
	return false
}

// afterKeyTTL: a try of a key was sent more than the key TTL after an
// earlier try of it was acked.
func afterKeyTTL(o Observation) bool {
	ttl := o.History.KeyTTL
	return ttl > 0 && anyPair(o, func(a, b *history.Attempt) bool { return a.Outcome == history.Acked && b.Call-a.Return > ttl })
}

// declinedRetried: a key declined for want of funds was sent again and
// answered.
func declinedRetried(o Observation) bool {
	return anyPair(o, func(a, b *history.Attempt) bool { return a.Status == http.StatusPaymentRequired && b.Status != 0 })
}

// retriedAfterFailover: the replica was promoted without a write the old
// primary had acknowledged, and a keyed request came after the promotion.
func retriedAfterFailover(o Observation) bool {
	f := o.Failover
	if f == nil || !f.Promoted || !f.CanaryLost {
		return false
	}
	for _, a := range o.History.Attempts {
		if a.Key != "" && a.Call > f.PromotedAt {
			return true
		}
	}
	return false
}
