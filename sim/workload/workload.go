// Package workload is the plan of a run: the accounts to open and the logical
// operations the simulated clients perform, each with the route and the fault
// of every try. A plan is pure data, generated from the run's seed before
// anything executes, so the same seed gives the same plan and fault schedule.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package workload

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// MaxOps bounds a plan: every load loop of the harness is bounded in count.
const MaxOps = 5000

// Currency is the currency of the accounts a built-in plan opens.
const Currency = "EUR"

// AccountID names account n (1-based) of a built-in plan: "acct-1".
func AccountID(n int) string { return fmt.Sprintf("acct-%d", n) }

// Account is an account opened before the run.
type Account struct {
	ID       string `json:"id"`
	Currency string `json:"currency"`
	Opening  int64  `json:"opening"`
}

// DropResponse is the client-side fault of a try (Try.Fault): the request
// reaches the target, which answers, and the answer is lost on its way back.
const DropResponse = "drop-response"

// Try is the route and faults of one try of an operation.
type Try struct {
	Replica int    `json:"replica"`
	Fault   string `json:"fault,omitempty"` // on the client's path: the try is routed through a faulty link (DropResponse)
	// Inject is a fault fired inside the target when this try reaches a
	// failpoint; zero: none. It is written as api.Injection writes it
	// ("redis-cut@after-commit"), left out when zero, and a saved plan with
	// a malformed one does not decode.
	Inject api.Injection `json:"inject,omitzero"`
}

// Op is one logical payment the client wants made exactly once.
type Op struct {
	ID       int    `json:"id"`
	Key      string `json:"key,omitempty"` // empty: sent without a key
	Account  string `json:"account"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	// Group releases every op of the same group together through a barrier; -1: none.
	Group int `json:"group"`
	// After delays the op until op After (an index in the plan) has
	// finished; -1: none.
	After int `json:"after"`
	// Delay waits this long (after After, before the barrier) to start.
	Delay time.Duration `json:"delay_ns,omitempty"`
	// Lag waits this long after the barrier released the op's group: a
	// duplicate sent into its first request rather than with it.
	Lag time.Duration `json:"lag_ns,omitempty"`
	// MaxTries bounds the tries; Tries plans the first ones.
	MaxTries int   `json:"max_tries"`
	Tries    []Try `json:"tries,omitempty"`
	// Stage is the op's stage (stages.go): it starts once every op of the
	// earlier stages has finished. 0 in a plan without stages.
	Stage int `json:"stage,omitempty"`
}

// TryAt returns the plan of try n (1-based). Tries past the planned ones go
// to the last planned replica, without a fault.
func (o Op) TryAt(n int) Try {
	switch {
	case len(o.Tries) == 0:
		return Try{}
	case n <= len(o.Tries):
		return o.Tries[n-1]
	}
	return Try{Replica: o.Tries[len(o.Tries)-1].Replica}
}

// Plan is everything a run will do.
type Plan struct {
	Accounts []Account `json:"accounts"`
	Ops      []Op      `json:"ops"`
	// Nonce, when set, made the plan's keys fresh for this run (Rekey): a
	// user's ledger outlives runs, so the same seed twice must not send the
	// same keys twice.
	Nonce uint64 `json:"nonce,omitempty"`
	// TopUps pay money into accounts between stages (stages.go).
	TopUps []TopUp `json:"top_ups,omitempty"`
	// Events happen to a replicated store between stages (stages.go).
	Events []StoreEvent `json:"store_events,omitempty"`
}

// Rekey gives every key of the plan a fresh one derived from the key and
// nonce, the same key always getting the same new one: ops that shared a
// key still share one, and nothing else changes. The nonce is kept.
func (p Plan) Rekey(nonce uint64) Plan {
	out := p
	out.Ops = slices.Clone(p.Ops)
	out.Nonce = nonce
	for i := range out.Ops {
		if k := out.Ops[i].Key; k != "" {
			out.Ops[i].Key = derivedKey(nonce, k)
		}
	}
	return out
}

// derivedKey is the UUIDv4 drawn from a stream seeded by nonce and key.
func derivedKey(nonce uint64, key string) string {
	sum := sha256.Sum256([]byte(key))
	rng := rand.New(rand.NewPCG(nonce, binary.LittleEndian.Uint64(sum[:8])))
	return NewKey(rng)
}

// Fault is one entry of the fault schedule.
type Fault struct {
	Op     int           `json:"op"`
	Try    int           `json:"try"`
	Fault  string        `json:"fault,omitempty"`
	Inject api.Injection `json:"inject,omitzero"`
}

// Faults lists the faults the plan places, in op and try order.
func (p Plan) Faults() []Fault {
	var out []Fault
	for _, o := range p.Ops {
		for i, t := range o.Tries {
			if (t.Fault != "" || !t.Inject.IsZero()) && i < o.MaxTries {
				out = append(out, Fault{Op: o.ID, Try: i + 1, Fault: t.Fault, Inject: t.Inject})
			}
		}
	}
	return out
}

// Currency is the currency the plan's payments are in: its first op's
// (every op of a plan shares it), else its first account's; "" if none.
func (p Plan) Currency() string {
	for _, o := range p.Ops {
		if o.Currency != "" {
			return o.Currency
		}
	}
	for _, a := range p.Accounts {
		if a.Currency != "" {
			return a.Currency
		}
	}
	return ""
}

// Validate checks the plan is well formed and bounded.
func (p Plan) Validate() error {
	if len(p.Ops) == 0 || len(p.Ops) > MaxOps {
		return fmt.Errorf("plan has %d operations; want 1 to %d", len(p.Ops), MaxOps)
	}
	ids := make(map[int]bool, len(p.Ops))
	for i, o := range p.Ops {
		switch {
		case ids[o.ID]:
			return fmt.Errorf("op %d: id %d used twice", i, o.ID)
		case o.MaxTries < 1 || o.MaxTries > 20:
			return fmt.Errorf("op %d: max tries %d not in 1..20", i, o.MaxTries)
		case o.After >= i:
			return fmt.Errorf("op %d waits for a later op %d", i, o.After)
		case o.Delay < 0 || o.Delay > time.Minute:
			return fmt.Errorf("op %d: delay %s not in 0..1m", i, o.Delay)
		case o.Lag < 0 || o.Lag > time.Minute:
			return fmt.Errorf("op %d: lag %s not in 0..1m", i, o.Lag)
		}
		ids[o.ID] = true
	}
	return p.validateStages()
}

// Route routes every try of every op to a replica drawn from rng, after
// giving each op a planned try for each of its MaxTries.
func Route(ops []Op, rng *rand.Rand, replicas int) {
	replicas = max(replicas, 1)
	for i := range ops {
		op := &ops[i]
		for len(op.Tries) < op.MaxTries {
			op.Tries = append(op.Tries, Try{})
		}
		for t := range op.Tries {
			op.Tries[t].Replica = rng.IntN(replicas)
		}
	}
}

// NewKey draws a UUIDv4 idempotency key from rng.
func NewKey(rng *rand.Rand) string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Seeded derives an independent random stream for component name from the
// run's root seed: adding a component never changes another one's stream.
func Seeded(seed uint64, name string) *rand.Rand {
	var h uint64 = 14695981039346656037 // FNV-1a
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return rand.New(rand.NewPCG(seed, h))
}
