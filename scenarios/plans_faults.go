package scenarios

import (
	"math/rand/v2"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// chain makes each op of ops start after the previous one finished, so that
// faults on a shared store link hit one request at a time.
func chain(ops []workload.Op) {
	for i := 1; i < len(ops); i++ {
		ops[i].After = i - 1
	}
}

// keyedOps appends n ops with fresh keys and max tries.
func keyedOps(plan *workload.Plan, rng *rand.Rand, n, tries int) []workload.Op {
	for i := 0; i < n; i++ {
		newOp(plan, rng, true).MaxTries = tries
	}
	return plan.Ops[len(plan.Ops)-n:]
}

// planForcedRace: trials of two same-key requests behind a barrier; the
// scenario's gate holds the first at its key check until the other commits.
func planForcedRace(rng *rand.Rand, p Params) workload.Plan {
	const trials = 5
	plan := base()
	for t := 0; t < trials; t++ {
		first := newOp(&plan, rng, true)
		first.Group, first.MaxTries = t, 16 // retries outlast the gate: the duplicate sees the replay
		second := *first
		second.ID = len(plan.Ops)
		plan.Ops = append(plan.Ops, second)
	}
	workload.Route(plan.Ops, rng, p.Replicas)
	return plan
}

// chainedFaults builds n chained ops whose first try carries the given
// client-side fault and in-target injection.
func chainedFaults(rng *rand.Rand, p Params, n, tries int, fault string, inject api.Injection) workload.Plan {
	plan := base()
	chain(keyedOps(&plan, rng, n, tries))
	workload.Route(plan.Ops, rng, p.Replicas)
	for i := range plan.Ops {
		plan.Ops[i].Tries[0].Fault, plan.Ops[i].Tries[0].Inject = fault, inject
	}
	return plan
}

// planDBFault: each op's first try cuts the Postgres link before its commit.
func planDBFault(rng *rand.Rand, p Params) workload.Plan {
	return chainedFaults(rng, p, 4, 3, "", api.Injection{Action: api.PGCut, Point: api.BeforeCommit})
}

// planDBFaultAfterCommit: each op's first try loses the database's answers
// from right before its commit: the COMMIT commits, unheard.
func planDBFaultAfterCommit(rng *rand.Rand, p Params) workload.Plan {
	return chainedFaults(rng, p, 4, 3, "", api.Injection{Action: api.PGDropReply, Point: api.BeforeCommit})
}

// planStoreFault: each op's first try loses its response and cuts the link
// to the store of cut (Redis, DynamoDB) right after the Postgres commit.
func planStoreFault(cut api.Action) func(*rand.Rand, Params) workload.Plan {
	return func(rng *rand.Rand, p Params) workload.Plan {
		return chainedFaults(rng, p, 3, 10, workload.DropResponse, api.Injection{Action: cut, Point: api.AfterCommit})
	}
}

// planSlowCharge: each op's first try meets Postgres latency right before its
// commit, long enough to outlive the claim.
func planSlowCharge(rng *rand.Rand, p Params) workload.Plan {
	return chainedFaults(rng, p, 2, 12, "", api.Injection{Action: api.PGLatency, Arg: 500 * time.Millisecond, Point: api.BeforeCommit})
}

// planFanout: tries go round robin over the replicas; the first response is
// dropped, so the retry asks another replica.
func planFanout(rng *rand.Rand, p Params) workload.Plan {
	plan := base()
	keyedOps(&plan, rng, 8, 4)
	workload.Route(plan.Ops, rng, p.Replicas)
	for i := range plan.Ops {
		op := &plan.Ops[i]
		first := rng.IntN(p.Replicas)
		for t := range op.Tries {
			op.Tries[t].Replica = (first + t) % p.Replicas
		}
		op.Tries[0].Fault = workload.DropResponse
	}
	return plan
}

// planClientTimeout: the server holds each first try longer than the client
// waits; retries meet the key in flight, then its stored response.
func planClientTimeout(rng *rand.Rand, p Params) workload.Plan {
	plan := base()
	keyedOps(&plan, rng, 6, 12)
	workload.Route(plan.Ops, rng, p.Replicas)
	for i := range plan.Ops {
		plan.Ops[i].Tries[0].Inject = api.Injection{Action: api.Delay, Arg: 200 * time.Millisecond, Point: api.BeforeCommit}
	}
	return plan
}

// planKeyExpiry: an op completes, and the same request is sent again once
// the key's TTL has passed.
func planKeyExpiry(rng *rand.Rand, p Params) workload.Plan {
	plan := base()
	for i := 0; i < 4; i++ {
		first := newOp(&plan, rng, true)
		first.MaxTries = 3
		again := *first
		again.ID, again.After, again.Delay = len(plan.Ops), first.ID, 500*time.Millisecond
		plan.Ops = append(plan.Ops, again)
	}
	workload.Route(plan.Ops, rng, p.Replicas)
	return plan
}

// planStorm: many keys starting over a short window; per first try, from the
// seed, a dropped response or a server slower than the client's patience.
func planStorm(rng *rand.Rand, p Params) workload.Plan {
	const ops = 40
	plan := base()
	keyedOps(&plan, rng, ops, 6)
	workload.Route(plan.Ops, rng, p.Replicas)
	for i := range plan.Ops {
		op := &plan.Ops[i]
		op.Delay = time.Duration(rng.IntN(200)) * time.Millisecond
		switch x := rng.IntN(100); {
		case x < 30 || i == 0:
			op.Tries[0].Fault = workload.DropResponse
		case x < 45 || i == 1 || i == 2:
			op.Tries[0].Inject = api.Injection{Action: api.Delay, Arg: 300 * time.Millisecond, Point: api.BeforeCommit}
		}
	}
	return plan
}
