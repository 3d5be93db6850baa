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
// replay_mismatch, mismatch_executed, balance. Per profile: status_contract.
//
// The key of an attempt is its Idempotency-Key (Attempt.Key). The reference
// fingerprint of a key is the fingerprint of the attempt that made the key's
// earliest ledger charge (lowest Seq); when the key has no charge, or that
// attempt is not in the history, it is the fingerprint of the key's earliest
// attempt by server start (if the server logged any of them), else by call
// time. Hidden attempts (transport-level re-sends) are real server-side
// attempts and take part in every check.
package check

import (
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Anomaly names, as they appear in reports.
const (
	// DoubleCharge: more than one ledger charge for one (account, key).
	DoubleCharge = "double_charge"
	// LostAck: a 2xx without exactly one matching ledger charge.
	LostAck = "lost_ack"
	// ReplayMismatch: 2xx answers for one key and payload disagree on charge id or body.
	ReplayMismatch = "replay_mismatch"
	// MismatchExecuted: a request whose payload differs from the key's was acked or charged.
	MismatchExecuted = "mismatch_executed"
	// Balance: an account balance differs from opening balance minus its charges.
	Balance = "balance"
	// StatusContract: a status code the contract profile does not allow.
	StatusContract = "status_contract"
)

// names is the stable order of the anomalies; a finding's rank is its index.
var names = [...]string{DoubleCharge, LostAck, ReplayMismatch, MismatchExecuted, Balance, StatusContract}

const (
	rankDoubleCharge = iota
	rankLostAck
	rankReplayMismatch
	rankMismatchExecuted
	rankBalance
	rankStatusContract
	numAnomalies
)

// Names returns every anomaly the checker knows, in a stable order.
func Names() []string {
	return append([]string(nil), names[:]...)
}

// Input is everything the checker judges: the history of a run, the ledger
// read after it, and the contract profile the target promised.
type Input struct {
	History history.History
	Ledger  history.Ledger
	Profile api.Profile
}

// Finding is one violated invariant with its evidence.
type Finding struct {
	Anomaly  string   `json:"anomaly"`
	Key      string   `json:"key,omitempty"`
	Account  string   `json:"account,omitempty"`
	Money    int64    `json:"money,omitempty"`    // minor units at stake for this finding
	Attempts []string `json:"attempts,omitempty"` // attempt ids that are the evidence
	Charges  []string `json:"charges,omitempty"`  // ledger charge ids that are the evidence
	Detail   string   `json:"detail"`             // one sentence in domain words
}

// Report is the checker's verdict on one run.
type Report struct {
	Counts      map[string]int `json:"anomalies"`   // every anomaly name checked, zero included
	Overcharged int64          `json:"overcharged"` // money charged more than once, minor units
	Findings    []Finding      `json:"findings"`    // ordered by anomaly (as Names), then key, then evidence
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
	c := newChecker(in)
	c.checkKeys()
	c.checkBalances()
	return c.report()
}

// report assembles the findings in their stable order.
func (c *checker) report() Report {
	r := Report{Counts: make(map[string]int, numAnomalies), Overcharged: c.overcharged}
	total := 0
	for rank, name := range names {
		r.Counts[name] = c.counts[rank]
		total += len(c.findings[rank])
	}
	r.Findings = make([]Finding, 0, total)
	for rank := range names {
		r.Findings = append(r.Findings, c.findings[rank]...)
	}
	return r
}
