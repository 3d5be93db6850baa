// Package check is the invariant checker of idemchaos: a pure function from
// what a run observed (every attempt as client and server saw it) and the
// ground truth read from the stores afterwards (the ledger) to a report of
// anomalies, each with the money at stake and the attempt and charge ids that
// prove it.
//
// The checker does no I/O and keeps no state: the same input always gives the
// same report, whatever the order of the attempts and charges in it.
//
// Universal invariants (every profile): double_charge, lost_ack,
// replay_mismatch, mismatch_executed, balance, stuck_key and, for targets that
// keep idempotency records in Redis and the ledger in Postgres, store_desync.
// Per profile: status_contract, cached_error, held_duplicate,
// refusal_not_replayed.
//
// A held duplicate is a same-key, same-payload attempt B answered 2xx with
// the charge of the key's original O (the maker of that charge in the
// ledger, else the same-payload attempt that answered it first without
// replaying it) where B was held until O finished instead of getting the
// profile's in-flight status at once. It is judged on the server's log when
// both have a server view, else on the client's timings (a user's service;
// where the client gave up, the answer that came later on the connection
// it left open: Attempt.Late), and it needs all of:
//   - B arrived while O was executing (or with it: at most 10 ms before O
//     started, as duplicates released together do), and O finished within the claim timeout
//     (History.ClaimTimeout, if set): past it the claim TTL governs, and a
//     design may let a lapsed claim wait on its store's truth; on the
//     client's timings O took at most twice the measured charge plus 50 ms
//     (Input.ChargeTime) of its own time, without what the harness held it
//     (Input.Held: a gate, a delay, a slowed link): longer, the client
//     stalled;
//   - B waited at least 20 ms before O finished (wait = O's end minus B's
//     start; 100 ms on the client's timings, which also hold the client's
//     own scheduling): a duplicate that met O's commit may get the replay at
//     once;
//   - B's answer came within 10 ms plus a quarter of the wait of O's end,
//     before or after: O's end released it;
//   - B's replica (the server's, else the one the client routed B to) gave
//     no attempt of the run the in-flight status. A target that refuses
//     in-flight duplicates does not hold them by design; when it answers one
//     late, something else slowed it (a pool queue, a lock on the account
//     row, a slow store link), which the timings cannot tell from a hold:
//     the refusals it gave were as slow, or it shows it can refuse at once.
//
// Two attempts of a key and payload are in flight together when their
// server intervals overlap or, in a run whose target logs nothing (a
// user's service), when one was sent before the other was answered or
// given up: the client's own timings. A 5xx to either, with no fault
// placed on it (Attempt.Fault) and no store link faulted while it was in
// flight (Input.Faulted), or, beside one that succeeded, an error status
// other than the profile's in-flight one (and 429), is a status_contract:
// the profile answers a duplicate in flight with its in-flight status.
//
// When the server's log holds B's claim on the key (ServerView.ClaimStart,
// ClaimEnd), the claim decides instead of the margins above: a claim that
// cannot wait (a try: ClaimWaits false) held nothing; one that may wait
// held B when its round trip began at least 20 ms before O was answered
// (ServerView.Handled), lasted at least 20 ms, ended after O's claim and
// within 10 ms plus a quarter of its length of O's answer (the refusal rule
// still applies). A busy machine writes a held answer late, and a request
// that stalled before its claim fits the margins of its whole span; its
// claim round trip shows neither.
//
// A profile whose service waits by design (api.Profile.InFlightWait) has no
// held duplicates.
//
// The key of an attempt is its Idempotency-Key (Attempt.Key). The reference
// fingerprint of a key is the fingerprint of the attempt that made the key's
// earliest ledger charge (lowest Seq); when the key has no charge, or that
// attempt is not in the history, it is the fingerprint of the key's earliest
// attempt by server start (if the server logged any of them), else by call
// time. Hidden attempts (transport-level re-sends) are real server-side
// attempts and take part in every check.
//
// A probe is an attempt sent once every fault has healed and every claim
// should have expired: when History.Quiesced is set, an attempt whose Call is
// at or after Quiesced + ClaimTimeout. A probe must replay or execute.
//
// Replays: every 2xx carrying a key's reference fingerprint must repeat the
// key's first such 2xx (by return time): the same status, the same charge
// id and the same body, compared as Input.Replay says: byte for byte (the
// zero ReplayCompare, the built-in targets'), or as JSON documents, field
// for field (members in any order, numbers by value), leaving out the
// fields ReplayCompare.Ignore names, for a service that renders
// per-response metadata (a request id, a timestamp). Every 2xx the run
// provoked is compared, whichever request provoked it: after a dropped
// response the client sees only the retry's replay, which is why the
// engine probes every completed key with further identical requests once
// the traffic is over (Attempt.ReplayProbe marks them; they are judged as
// any other attempt and the mark only names them in evidence). Where the
// profile names a replay header (stripe: Idempotent-Replayed: true), every
// replay must carry it, the key's first 2xx included when the ledger proves
// it a replay: a 2xx is one when the charge it names was made by another
// attempt of the key (the row's attempt id; for a row naming none, an
// earlier attempt whose server answer named the charge without replaying
// it; for a ledger without charge ids, the key's charge of that account and
// amount made by another attempt), and the attempt that made the charge
// is no replay, whenever its answer came back. Where the ledger cannot tell,
// a 2xx sent after another 2xx of the key had come back is a replay.
//
// Refusals: a business refusal (api.StatusDeclined, 402: the charge was
// decided and declined) is a completed result, as a 2xx is, and a 5xx is
// not. Once a same-payload attempt of a key was answered it, every other
// same-payload attempt of the key that got a completed answer (a 2xx or
// a 4xx other than the in-flight status and 429) must get that refusal
// again, status and body compared as replays are, and the ledger must
// hold no charge for the key; an attempt that started more than
// History.KeyTTL after the refusal ended is a new request. Each attempt
// answered otherwise or charged is one refusal_not_replayed finding, as
// is each charge of the key no such attempt made. A profile with
// RedecideRefusals declares a service that forgets a declined key and
// decides its retries again: those findings are then Report.Deviations,
// not anomalies.
//
// Each anomaly is one Definition (anomalies.go): its code, what it costs,
// its explanation, the profiles that permit it and its demo, read from
// there by the reports, the narrator and the conformance table. Register
// adds an anomaly with a Find of its own, run after the checker's passes.
//
// It is a stable API.
package check

import (
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
	"slices"
	"time"
)

// Input is everything the checker judges: the history of a run, the ledger
// read after it (with the Redis records, if any), and the contract profile
// the target promised.
type Input struct {
	History history.History
	Ledger  history.Ledger
	Profile api.Profile
	// TwoStores says the target keeps its idempotency records in Redis and
	// its ledger in Postgres; store_desync is checked only then.
	TwoStores bool
	// Replay is how a replay must repeat the key's first 2xx: a property of
	// the target (zero: byte for byte, as for the built-in targets).
	Replay ReplayCompare
	// ChargeTime is how long the target usually takes to charge, measured
	// from outside before the run (0: unknown). On the client's timings a
	// held duplicate is judged only behind an original that took at most
	// twice that plus 50ms of its own time (without Held): a longer one
	// means the client stalled.
	ChargeTime time.Duration
	// Currency is the currency of the run's amounts ("EUR"), named after
	// every sum of money a detail gives; "" names none.
	Currency string
	// Held is how long the harness itself held each attempt inside the
	// target (a gate, a delay at a point, a slowed store link), by attempt
	// id: what the harness holds is never the service's, so a held
	// duplicate's original is measured without it.
	Held map[string]time.Duration
	// Checked is, by attempt id, when a traced target found the attempt's
	// key free (the after-check point): a charge that looked for its key
	// more than KeyTTL after the key's last charge reached the server may
	// have found the record expired, however late that charge's answer
	// ended on a loaded machine.
	Checked map[string]time.Duration
	// Faulted are the spans of the run in which the harness had a store
	// link of the target faulted (a cut, lost replies, latency): a 5xx
	// then is the fault's, not a contract's.
	Faulted []Window
}

// Window is a span of the run's clock.
type Window struct {
	From time.Duration `json:"from_ns"`
	To   time.Duration `json:"to_ns"`
}

// Finding is one violated invariant with its evidence.
type Finding struct {
	Anomaly  Anomaly  `json:"anomaly"`
	Key      string   `json:"key,omitempty"`
	Account  string   `json:"account,omitempty"`
	Money    int64    `json:"money,omitempty"`    // minor units at stake for this finding
	Attempts []string `json:"attempts,omitempty"` // attempt ids that are the evidence
	Charges  []string `json:"charges,omitempty"`  // ledger charge ids that are the evidence
	Detail   string   `json:"detail"`             // one sentence in domain words
}

// Report is the checker's verdict on one run.
type Report struct {
	Counts      map[Anomaly]int `json:"anomalies"`   // every anomaly checked, zero included
	Overcharged int64           `json:"overcharged"` // money charged more than once, minor units
	Findings    []Finding       `json:"findings"`    // ordered by anomaly (as Names), then key, then evidence
	// Deviations are findings the profile documents as its service's
	// behaviour (a declined key decided again, under a profile with
	// RedecideRefusals): shown, never counted, never a failure. By key.
	Deviations []Finding `json:"deviations,omitempty"`
	// Holds is what the run's hold probes showed (nil: it sent none).
	Holds *HoldProbes `json:"holds,omitempty"`
}

// Failed reports whether any invariant was violated.
func (r Report) Failed() bool {
	for _, n := range r.Counts {
		if n > 0 {
			return true
		}
	}
	return false
}

// Run checks every invariant on in and returns the report. It is pure: it does
// not modify in, and equal inputs (up to the order of attempts, charges and
// accounts) give identical reports.
func Run(in Input) Report {
	in, expired := splitExpired(in)
	c := newChecker(in)
	c.expired = expired
	c.checkKeys()
	c.judgeHoldProbes()
	c.checkBalances()
	c.findRegistered(in)
	return c.report()
}

// findRegistered runs the Find of every anomaly added with Register.
func (c *checker) findRegistered(in Input) {
	for rank := numBuiltin; rank < len(c.counts); rank++ {
		for _, f := range registry[rank].Find(in) {
			f.Anomaly = registry[rank].Anomaly
			c.add(rank, 1, f)
		}
		slices.SortStableFunc(c.findings[rank], byKey)
	}
}

// report assembles the findings in their stable order.
func (c *checker) report() Report {
	r := Report{Counts: make(map[Anomaly]int, len(c.counts)), Overcharged: c.overcharged}
	total := 0
	for rank, n := range c.counts {
		r.Counts[registry[rank].Anomaly] = n
		total += len(c.findings[rank])
	}
	r.Findings = make([]Finding, 0, total)
	for rank := range c.findings {
		r.Findings = append(r.Findings, c.findings[rank]...)
	}
	r.Deviations, r.Holds = c.deviations, c.holds
	return r
}
