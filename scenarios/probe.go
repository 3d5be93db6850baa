package scenarios

import (
	"cmp"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// ReplayProbes is how many further identical requests every completed key
// gets once a cell's main traffic is over (ReplayPlan).
const ReplayProbes = 2

// The replay probes of a key go one after another, and the keys of a lane
// after each other: replayLanes keys are probed at once, more in a big
// plan, so that no lane holds more than laneKeys keys. The probes then take
// at most 2 × laneKeys per-try timeouts, whatever the number of keys.
const (
	replayLanes = 16
	laneKeys    = 8
)

// ReplayPlan is what follows a cell's main traffic: for every key of plan
// that completed as far as its client can tell (a 2xx or a business
// refusal was seen for it, or a try whose response the plan dropped timed
// out: the server had answered), ReplayProbes single-try requests identical to the key's
// reference request (its first op's account, amount and currency), one
// after another, on the replicas its tries used (round robin, in op and
// try order: the same probes on every run of the plan, whichever request
// the interleaving let in first). The replays they provoke are what the
// checker compares with the key's first answer: after a dropped response
// the client saw only one 2xx, or none. Ops are numbered from NextOp(plan);
// keys are probed in plan order, replayLanes at once (more beyond
// replayLanes × laneKeys keys). attempts are the main traffic's, as the
// client recorded them.
func ReplayPlan(plan workload.Plan, attempts []history.Attempt) workload.Plan {
	type seen struct {
		done     bool
		replicas []int
	}
	byKey := map[string]*seen{}
	sorted := slices.Clone(attempts)
	slices.SortStableFunc(sorted, func(a, b history.Attempt) int {
		return cmp.Or(cmp.Compare(a.Op, b.Op), cmp.Compare(a.Try, b.Try))
	})
	for _, a := range sorted {
		if a.Key == "" || a.Hidden {
			continue
		}
		k := byKey[a.Key]
		if k == nil {
			k = &seen{}
			byKey[a.Key] = k
		}
		if !slices.Contains(k.replicas, a.Replica) {
			k.replicas = append(k.replicas, a.Replica)
		}
		k.done = k.done || completed(a)
	}
	done := 0
	for _, k := range byKey {
		if k.done {
			done++
		}
	}
	var p workload.Plan
	next := NextOp(plan)
	lanes := make([]int, max(replayLanes, (done+laneKeys-1)/laneKeys)) // each lane's last probe in p.Ops, -1: none
	for i := range lanes {
		lanes[i] = -1
	}
	probed := 0
	for _, op := range plan.Ops {
		k := byKey[op.Key]
		if op.Key == "" || k == nil || !k.done {
			continue
		}
		k.done = false // once per key: its first op is its reference
		lane := probed % len(lanes)
		probed++
		for i := range ReplayProbes {
			p.Ops = append(p.Ops, workload.Op{ID: next, Key: op.Key, Account: op.Account, Amount: op.Amount,
				Currency: op.Currency, Group: -1, After: lanes[lane], MaxTries: 1,
				Tries: []workload.Try{{Replica: k.replicas[i%len(k.replicas)]}}})
			lanes[lane] = len(p.Ops) - 1
			next++
		}
	}
	return p
}

// completed reports whether an attempt shows its key completed, from the
// client's view: a 2xx, a business refusal (a declined charge is a result
// too, which a retry must get again), or no answer on a try whose response
// the plan dropped after the server answered. A 409 (in flight) or a 5xx
// is no completed result.
func completed(a history.Attempt) bool {
	return a.Outcome == history.Acked || a.Status == api.StatusDeclined ||
		a.Outcome == history.Indeterminate && a.Status == 0 && a.Fault == workload.DropResponse
}

// NextOp is the first op id after every op of plans.
func NextOp(plans ...workload.Plan) int {
	next := 0
	for _, p := range plans {
		next = max(next, len(p.Ops))
		for _, op := range p.Ops {
			next = max(next, op.ID+1)
		}
	}
	return next
}

// ProbePlan has one single-try op per key of plan, numbered from next
// (NextOp of the plan and of what ran after it): the probes sent once
// every fault has healed and the claim timeout passed.
func ProbePlan(plan workload.Plan, next int) workload.Plan {
	var p workload.Plan
	seen := map[string]bool{}
	for _, op := range plan.Ops {
		if op.Key == "" || seen[op.Key] {
			continue
		}
		seen[op.Key] = true
		probe := workload.Op{ID: next, Key: op.Key, Account: op.Account, Amount: op.Amount, Currency: op.Currency,
			Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: op.TryAt(1).Replica}}}
		p.Ops = append(p.Ops, probe)
		next++
	}
	return p
}

// ConfirmWait is how long after its probe a key's confirming probe goes
// (ConfirmPlan): another claim timeout and a quarter, and at least a
// second, in which a store connection the faults left broken is replaced
// and a transaction they left open is rolled back.
func ConfirmWait(claim time.Duration) time.Duration { return max(claim+claim/4, time.Second) }

// ConfirmPlan has one single-try op, numbered from next, for every key
// whose probe (an attempt of probes) was answered a status of the
// profile's in-flight set or a 5xx
// that was not a replay: a poisoned key answers its confirming probe the
// same way, a key that was only slow to recover (a stale pooled
// connection failing once more, a leftover transaction still holding the
// key's lock on a loaded machine) replays or executes. The checker judges
// such a key on its last probe. Each op goes to the replica its probe
// went to, with the key's reference request.
func ConfirmPlan(plan workload.Plan, probes []history.Attempt, profile api.Profile, next int) workload.Plan {
	ref := map[string]workload.Op{}
	for _, op := range plan.Ops {
		if _, ok := ref[op.Key]; op.Key != "" && !ok {
			ref[op.Key] = op
		}
	}
	var p workload.Plan
	seen := map[string]bool{}
	for _, a := range probes {
		op, ok := ref[a.Key]
		if !ok || seen[a.Key] || a.Hidden || !(profile.IsInFlight(a.Status) || a.Status >= 500 && !a.Replayed) {
			continue
		}
		seen[a.Key] = true
		p.Ops = append(p.Ops, workload.Op{ID: next, Key: op.Key, Account: op.Account, Amount: op.Amount, Currency: op.Currency,
			Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: a.Replica}}})
		next++
	}
	return p
}
