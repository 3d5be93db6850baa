// Package history is the data model that flows from the simulated clients to the
// checker and the reports: every attempt as the client and the server saw it,
// and the ground truth read from the stores after the run.
//
// It is a leaf package (standard library only) so that the checker and the
// renderers never depend on the code that produced the data. It is a
// stable API, and its JSON is the format of history.jsonl.
package history

import (
	"strings"
	"time"
)

// Outcome classifies how an attempt ended, from the client's point of view.
type Outcome string

const (
	// Acked is a 2xx answer: the operation took effect.
	Acked Outcome = "acked"
	// Rejected is a definitive 4xx answer: the attempt changed nothing.
	Rejected Outcome = "rejected"
	// NotSent means the request never left the client (dial refused): not applied.
	NotSent Outcome = "not_sent"
	// Indeterminate means a timeout, a reset after send or a 5xx: maybe applied.
	Indeterminate Outcome = "indeterminate"
)

// Attempt is one HTTP request on the wire.
type Attempt struct {
	Op  int    `json:"op"`  // index of the logical operation in the plan
	Try int    `json:"try"` // 1-based try number within the operation
	ID  string `json:"id"`  // attempt id sent in api.HeaderAttempt

	Key         string `json:"key,omitempty"` // empty: sent without a key
	Account     string `json:"account"`
	Amount      int64  `json:"amount"`
	Fingerprint string `json:"fingerprint"`
	Replica     int    `json:"replica"`         // replica the attempt was routed to
	Fault       string `json:"fault,omitempty"` // fault placed on this attempt by the plan

	Call   time.Duration `json:"call_ns"`   // since the run's start
	Return time.Duration `json:"return_ns"` // since the run's start

	Status   int     `json:"status,omitempty"`
	Outcome  Outcome `json:"outcome"`
	ChargeID string  `json:"charge_id,omitempty"`
	Body     string  `json:"body,omitempty"`
	Replayed bool    `json:"replayed,omitempty"` // the replay header was present
	Err      string  `json:"err,omitempty"`
	Reused   bool    `json:"reused,omitempty"` // sent on a reused connection

	// Hidden marks an attempt that the server saw but the client did not send on
	// purpose: a transport-level re-send of an earlier attempt.
	Hidden bool `json:"hidden,omitempty"`
	// ReplayProbe marks a further identical request the harness sent, once
	// the main traffic was over, to a key that had completed, so that the
	// key's replay is seen even when the client saw no 2xx or only one. It
	// is judged like every other attempt; the mark only names it in
	// evidence and stories.
	ReplayProbe bool `json:"replay_probe,omitempty"`
	// HoldProbe marks a request of the harness's hold probes, sent once
	// the main traffic was over: a key's first request, then its duplicate
	// while the first is in flight, to see whether the duplicate is
	// refused at once or held until the first is done.
	HoldProbe bool `json:"hold_probe,omitempty"`
	// Late is the answer that came after the client had given up on the
	// attempt (its try timed out), on the connection it left open: what
	// the service answered nobody. The client's outcome stays what it saw
	// (indeterminate); nil: none came before the run ended.
	Late *Late `json:"late,omitempty"`
	// Server is what the target logged for this attempt; nil if it never arrived.
	Server *ServerView `json:"server,omitempty"`
	// Applied resolves an indeterminate attempt against the ledger: did it charge?
	Applied *bool `json:"applied,omitempty"`
}

// TimeoutErr begins the Err of an attempt whose client stopped waiting
// at its per-try timeout.
const TimeoutErr = "timeout: "

// TimedOut reports an attempt its client gave up on at its per-try
// timeout, with no answer.
func (a Attempt) TimedOut() bool {
	return a.Status == 0 && a.Outcome == Indeterminate && strings.HasPrefix(a.Err, TimeoutErr)
}

// Late is an answer that came after its client had given up.
type Late struct {
	At       time.Duration `json:"at_ns"` // since the run's start
	Status   int           `json:"status"`
	ChargeID string        `json:"charge_id,omitempty"`
	Replayed bool          `json:"replayed,omitempty"`
}

// ServerView is a target's log line for one attempt.
type ServerView struct {
	Replica int           `json:"replica"`
	Start   time.Duration `json:"start_ns"`
	End     time.Duration `json:"end_ns"`
	// ClaimStart and ClaimEnd are when the idempotency layer's claim on
	// the key ran (both zero: not logged), ClaimWaits whether that claim
	// may wait on another request (false: a try, which never does);
	// Handled is when the layer answered, before the answer was written
	// (zero: not logged).
	ClaimStart time.Duration `json:"claim_start_ns,omitempty"`
	ClaimEnd   time.Duration `json:"claim_end_ns,omitempty"`
	ClaimWaits bool          `json:"claim_waits,omitempty"`
	Handled    time.Duration `json:"handled_ns,omitempty"`
	Status     int           `json:"status"`
	ChargeID   string        `json:"charge_id,omitempty"`
	Replayed   bool          `json:"replayed,omitempty"`
}

// Charge is one ledger row: money that really moved.
type Charge struct {
	ID        string `json:"id"`
	Account   string `json:"account"`
	Amount    int64  `json:"amount"`
	Key       string `json:"key,omitempty"`
	AttemptID string `json:"attempt_id,omitempty"`
	Seq       int64  `json:"seq"` // commit order as the ledger numbered it
}

// Account is an account's state after the run.
type Account struct {
	ID      string `json:"id"`
	Opening int64  `json:"opening"`
	Balance int64  `json:"balance"`
	// Credited is what the run paid into the account after it was opened
	// (a top-up): the balance is the opening balance plus it, minus the
	// charges. Absent from older documents, which read as 0.
	Credited int64 `json:"credited,omitempty"`
}

// Ledger is the ground truth read from Postgres after the run.
type Ledger struct {
	Charges  []Charge  `json:"charges"`
	Accounts []Account `json:"accounts"`
	// RowsAtStart is the number of charges found before the run began; a run
	// that did not start from an empty ledger proves nothing.
	RowsAtStart int `json:"rows_at_start"`
	// NoAttemptIDs says the ledger's rows do not name the attempt that made
	// them (a user's own service), so indeterminate attempts stay unresolved.
	NoAttemptIDs bool `json:"no_attempt_ids,omitempty"`
	// NoChargeIDs says the rows carry no charge id: an ack is matched to
	// its key's charges by account and amount instead.
	NoChargeIDs bool `json:"no_charge_ids,omitempty"`
	// NoKeyless says the charges made without a key could not be read
	// back (the rows name no attempt): a keyless ack is not checked
	// against the ledger.
	NoKeyless bool `json:"no_keyless,omitempty"`
	// Redis holds the idempotency records found in Redis after the run, for
	// strategies that keep them there (nil otherwise).
	Redis []RedisRecord `json:"redis,omitempty"`
}

// RedisRecord is one idempotency record read from Redis after the run.
type RedisRecord struct {
	Key         string        `json:"key"` // the idempotency key, without the run's prefix
	Fingerprint string        `json:"fingerprint"`
	Done        bool          `json:"done"`                // false: an in-flight claim
	Status      int           `json:"status,omitempty"`    // stored response status, when done
	ChargeID    string        `json:"charge_id,omitempty"` // charge named by the stored response
	TTL         time.Duration `json:"ttl_ns"`              // remaining time to live; -1: none
}

// History is everything a run observed.
type History struct {
	Seed     uint64    `json:"seed"`
	Attempts []Attempt `json:"attempts"`
	// Quiesced is when every fault had healed and all work had ended; attempts
	// sent from Quiesced+ClaimTimeout on are probes that must replay or
	// execute. Zero: the run has no probe phase.
	Quiesced time.Duration `json:"quiesced_ns,omitempty"`
	// ClaimTimeout is the longest a key may legitimately stay in flight.
	ClaimTimeout time.Duration `json:"claim_timeout_ns,omitempty"`
	// KeyTTL is the target's documented key retention: a request sent more
	// than KeyTTL after its key's last charge is a new request, and may charge
	// again. Zero: keys never expire.
	KeyTTL time.Duration `json:"key_ttl_ns,omitempty"`
	// End is when the ground truth was read, on the run's clock.
	End time.Duration `json:"end_ns,omitempty"`
}
