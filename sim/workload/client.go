package workload

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// FrontFault is what the server idemchaos serves to a client under test
// does to one of its requests (client mode).
type FrontFault string

// The front's faults. Each is a way a real payment API fails a client.
const (
	// DropAfterCommit: the charge commits, then the connection is reset
	// before the answer is written: the money moved and the client saw a
	// network error.
	DropAfterCommit FrontFault = "drop-after-commit"
	// ResetBeforeRead: the connection is reset before the request is
	// handled: nothing happened, a retry is safe.
	ResetBeforeRead FrontFault = "reset-before-read"
	// InFlight: the connection is reset at once while the request goes on,
	// its commit held (ClientPlan.Hold): a retry meanwhile meets the
	// in-flight status (409), a later one the replay.
	InFlight FrontFault = "in-flight"
	// Unavailable: 503 with Retry-After, nothing done.
	Unavailable FrontFault = "unavailable"
	// RateLimited: 429 with Retry-After, nothing done.
	RateLimited FrontFault = "rate-limited"
	// SlowAnswer: the charge commits and its answer comes after the
	// client's timeout (ClientPlan.Slow later than ClientPlan.Timeout).
	SlowAnswer FrontFault = "slow-answer"
)

// FrontFaults lists the front's faults, in the order plans deal them.
var FrontFaults = []FrontFault{DropAfterCommit, ResetBeforeRead, InFlight, Unavailable, RateLimited, SlowAnswer}

// ClientOp is one operation of a client plan: a charge on an account of
// its own, and the fault its first tries meet (Faults[i] for try i+1;
// every later try is answered).
type ClientOp struct {
	ID       string       `json:"op"`
	Account  string       `json:"account"`
	Amount   int64        `json:"amount"`
	Currency string       `json:"currency"`
	Faults   []FrontFault `json:"faults,omitempty"`
}

// ClientPlan is what idemchaos asks of a client under test and what its
// server does to the client's requests, drawn from one seed.
type ClientPlan struct {
	Seed uint64     `json:"seed"`
	Ops  []ClientOp `json:"ops"`
	// Opening is each account's opening balance: enough for its charge
	// twice over, so that a second charge shows instead of a refusal.
	Opening int64 `json:"opening"`
	// Timeout is the request timeout the client is asked to use; Slow is
	// how late a SlowAnswer comes (after it).
	Timeout time.Duration `json:"timeout_ns"`
	Slow    time.Duration `json:"slow_ns"`
	// Hold is how long an InFlight request's commit is held; RetryAfter
	// the Retry-After of a 429 or 503, in seconds.
	Hold       time.Duration `json:"hold_ns"`
	RetryAfter int           `json:"retry_after_s"`
}

// ClientDefaults are the plan's timings: a client timeout of 1s, answered
// 1.5s late; an in-flight commit held 600ms (past a backed-off client's
// first retry, before its second); Retry-After 1s.
var ClientDefaults = ClientPlan{Timeout: time.Second, Slow: 2500 * time.Millisecond, Hold: 600 * time.Millisecond, RetryAfter: 1}

// NewClientPlan draws a plan of n operations (at least one per fault)
// from rng: the faults are dealt in turn to the first tries of all but a
// fifth of the operations, drawn at random: the first round of the deal
// gives each fault to one operation alone, every later round gives each
// one an operation whose second try meets a second fault (a reset, a 503
// or an answer dropped after the commit, drawn from rng); the rest meet
// none. Every plan of 12 operations or more thus holds each fault alone
// and each followed by another, whatever the seed: a client's verdict
// depends on what it does, not on the luck of the deal.
func NewClientPlan(seed uint64, rng *rand.Rand, n int) (ClientPlan, error) {
	if n < len(FrontFaults) {
		return ClientPlan{}, fmt.Errorf("a client plan needs at least %d operations (one per fault), not %d", len(FrontFaults), n)
	}
	p := ClientDefaults
	p.Seed, p.Opening = seed, 1_000_000
	amounts := rng.Perm(9000)
	for i := range n {
		p.Ops = append(p.Ops, ClientOp{ID: fmt.Sprintf("op-%02d", i+1), Account: fmt.Sprintf("acct-op-%02d", i+1),
			Amount: int64(1000 + amounts[i]), Currency: "usd"})
	}
	faulted := max(len(FrontFaults), n-n/5) // up to a fifth of the operations meet no fault
	for i, at := range rng.Perm(n)[:faulted] {
		op := &p.Ops[at]
		op.Faults = append(op.Faults, FrontFaults[i%len(FrontFaults)])
		if i >= len(FrontFaults) {
			op.Faults = append(op.Faults, secondFaults[rng.IntN(len(secondFaults))])
		}
	}
	return p, nil
}

// secondFaults are the faults a second try may meet.
var secondFaults = [...]FrontFault{ResetBeforeRead, Unavailable, DropAfterCommit}

// FaultAt is the fault the try-th request of operation op meets ("": none).
func (p ClientPlan) FaultAt(op string, try int) FrontFault {
	for _, o := range p.Ops {
		if o.ID == op && try >= 1 && try <= len(o.Faults) {
			return o.Faults[try-1]
		}
	}
	return ""
}

// OpOf is the operation whose account is account ("": none).
func (p ClientPlan) OpOf(account string) string {
	for _, o := range p.Ops {
		if o.Account == account {
			return o.ID
		}
	}
	return ""
}
