package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Hold probes: a duplicate that waits for its key's first request instead
// of getting 409 at once (a per-key mutex, an INSERT waiting on the
// uncommitted key row, an account's row lock taken before the key is
// looked at) is proved from outside by pairs of requests sent once the
// traffic is over, one pair at a time on a quiet target: a key's first
// request A, then its duplicate B while A is surely in flight (a third of
// the measured charge later or, on a target that can hold A inside, such
// as every built-in strategy, a third of the HoldDelay it is held). A refused B (409) is no hold; a B that gets
// A's 2xx only once A is answered was held; a B sent after A was answered
// decides nothing. The checker judges the pairs together: a service that
// refused any duplicate in flight holds none (a late 2xx there was the
// machine, not the service).

// HoldPairs is how many pairs a run's hold probes send.
const HoldPairs = 6

// HoldMinCharge is the least measured charge the hold probes run
// against from outside: below it, a duplicate cannot be sent while the
// first request is surely in flight. A service that speaks the failpoint
// protocol is probed whatever its speed: its first request is held
// HoldDelay at after-claim, its key claimed.
const (
	HoldMinCharge = 30 * time.Millisecond
	HoldDelay     = 300 * time.Millisecond
)

// ProbesHolds reports whether the cell's run ends with hold probes: a
// built-in strategy, or a user's service whose charge was measured slow
// enough or that speaks the failpoint protocol, under a scenario that
// probes holds.
func (c Cell) ProbesHolds(sc Scenario) bool {
	return c.under().probesHolds(c, sc)
}

// HoldOffset is how far past the plan's ops the hold probes are numbered:
// past every replay, stuck-key and confirming probe a run may send.
const HoldOffset = 4 * workload.MaxOps

// Holds is the cell's hold probes (HoldPlan), numbered from HoldOffset
// past the plan's ops: a first request held HoldDelay inside the target
// (holdFirst), its duplicate a third of that later; against a service
// that cannot be held, a first request takes a third of the measured
// charge's lead.
func (c Cell) Holds(sc Scenario, plan workload.Plan) workload.Plan {
	if !c.ProbesHolds(sc) {
		return workload.Plan{}
	}
	if inject, ok := c.under().holdFirst(); ok {
		return HoldPlan(plan, c.Seed, HoldDelay/3, NextOp(plan)+HoldOffset, inject)
	}
	return HoldPlan(plan, c.Seed, c.Timing.Charge/3, NextOp(plan)+HoldOffset, api.Injection{})
}

// HoldPlan is HoldPairs pairs of single tries, numbered from next, each
// pair a fresh key (drawn from the seed and the run's nonce) on the
// account, amount and currency of one of plan's keyed ops, accounts taken
// in turn. A pair's first request (with inject, "" for none) starts once
// the previous pair's first is answered; its duplicate delay after that.
func HoldPlan(plan workload.Plan, seed uint64, delay time.Duration, next int, inject api.Injection) workload.Plan {
	var templates []workload.Op
	seen := map[string]bool{}
	for _, op := range plan.Ops {
		if op.Key != "" && !seen[op.Account] {
			seen[op.Account] = true
			templates = append(templates, op)
		}
	}
	var p workload.Plan
	if len(templates) == 0 {
		return p
	}
	rng := workload.Seeded(seed^plan.Nonce, "hold-probes")
	prev := -1
	for i := range HoldPairs {
		t := templates[i%len(templates)]
		key := workload.NewKey(rng)
		first := workload.Op{ID: next, Key: key, Account: t.Account, Amount: t.Amount, Currency: t.Currency,
			Group: -1, After: prev, MaxTries: 1, Tries: []workload.Try{{Replica: 0, Inject: inject}}}
		dup := first
		dup.ID, dup.Delay, dup.Tries = next+1, delay, []workload.Try{{Replica: 0}}
		prev = len(p.Ops)
		p.Ops = append(p.Ops, first, dup)
		next += 2
	}
	return p
}

// holdsAssumption is why a run whose hold probes decided nothing proves
// nothing about holds ("" when they decided, or when they showed the
// service too fast to probe), told from the pairs it counts.
func holdsAssumption(h *check.HoldProbes) string {
	if h == nil || h.Pairs == 0 || h.Undecided < h.Pairs || tooFastToProbe(h) {
		return ""
	}
	return fmt.Sprintf("the hold probes decided nothing: %s: whether a duplicate in flight waits for its first request is not proved",
		undecidedText(h))
}

// undecidedText says why a run's undecided hold-probe pairs decided
// nothing, a clause per reason that occurred ("of 6 pairs, 4 had their
// first request answered before the duplicate was sent (...), 2 got no
// answer").
func undecidedText(h *check.HoldProbes) string {
	var parts []string
	if h.Early > 0 {
		parts = append(parts, fmt.Sprintf("%d had the first request answered before its duplicate was sent (the service charged faster than it was measured)", h.Early))
	}
	if h.Unanswered > 0 {
		parts = append(parts, fmt.Sprintf("%d had a request that got no answer", h.Unanswered))
	}
	if h.FirstFailed > 0 {
		parts = append(parts, fmt.Sprintf("%d had the first request refused or failed under a fault", h.FirstFailed))
	}
	if other := h.Undecided - h.Early - h.Unanswered - h.FirstFailed; other > 0 {
		parts = append(parts, fmt.Sprintf("%d had the duplicate answered 2xx as the first one committed, too close to tell a wait", other))
	}
	return fmt.Sprintf("of %d pairs, %s", h.Pairs, strings.Join(parts, "; "))
}

// tooFastToProbe reports whether the hold probes showed what the measured
// charge time missed (a loaded machine measured it slow): every first
// request was answered within HoldMinCharge, before its duplicate was
// sent, so fast that a duplicate cannot be placed in flight beside it,
// the case in which a service measured fast is not probed at all.
func tooFastToProbe(h *check.HoldProbes) bool {
	return h.Early == h.Pairs && h.FirstSlowest > 0 && h.FirstSlowest < HoldMinCharge
}

// holdsNote says why holds were not judged on a service the probes showed
// too fast ("" otherwise).
func holdsNote(h *check.HoldProbes) string {
	if h == nil || h.Pairs == 0 || !tooFastToProbe(h) {
		return ""
	}
	return fmt.Sprintf("hold probes: every first request was answered within %s (under %s), before its duplicate could be sent: "+
		"too fast to place a duplicate in flight, so holds were not judged", h.FirstSlowest.Round(time.Millisecond), HoldMinCharge)
}
