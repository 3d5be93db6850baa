package scenarios

import (
	"math/rand/v2"

	"github.com/idemchaos/idemchaos/sim/workload"
)

const (
	accounts = 4
	opening  = 1_000_000
)

// base opens the accounts every scenario charges.
func base() workload.Plan {
	var p workload.Plan
	for i := 1; i <= accounts; i++ {
		p.Accounts = append(p.Accounts, workload.Account{ID: workload.AccountID(i), Currency: workload.Currency, Opening: opening})
	}
	return p
}

// newOp appends an op with a fresh key (or none), a random account and amount.
func newOp(p *workload.Plan, rng *rand.Rand, withKey bool) *workload.Op {
	op := workload.Op{ID: len(p.Ops), Account: workload.AccountID(1 + rng.IntN(accounts)),
		Amount: int64(100 * (1 + rng.IntN(20))), Currency: workload.Currency, Group: -1, After: -1, MaxTries: 1}
	if withKey {
		op.Key = workload.NewKey(rng)
	}
	p.Ops = append(p.Ops, op)
	return &p.Ops[len(p.Ops)-1]
}

// planConcurrent: trials of K duplicates behind a barrier. A duplicate that
// gets 409 retries until it gets the replay.
func planConcurrent(rng *rand.Rand, p Params) workload.Plan {
	const trials, k = 10, 6
	plan := base()
	for t := 0; t < trials; t++ {
		first := newOp(&plan, rng, true)
		first.Group, first.MaxTries = t, 6
		proto := *first
		for d := 1; d < k; d++ {
			op := proto
			op.ID = len(plan.Ops)
			plan.Ops = append(plan.Ops, op)
		}
	}
	workload.Route(plan.Ops, rng, p.Replicas)
	return plan
}

// planDropped: each op's first tries may have their response dropped after
// the server committed, decided per try from the seed; the last try is clean.
func planDropped(rng *rand.Rand, p Params) workload.Plan {
	const ops = 12
	plan := base()
	for i := 0; i < ops; i++ {
		op := newOp(&plan, rng, true)
		op.MaxTries = 4
		op.Tries = make([]workload.Try, 3)
		for t := range op.Tries {
			if t == 0 && rng.IntN(4) != 0 || t == 1 && rng.IntN(3) == 0 {
				op.Tries[t].Fault = workload.DropResponse
			}
		}
	}
	if len(plan.Faults()) == 0 { // the scenario is about drops: place at least one
		plan.Ops[0].Tries[0].Fault = workload.DropResponse
	}
	workload.Route(plan.Ops, rng, p.Replicas)
	return plan
}

// planMismatch: an op completes, then the same key is sent with another amount.
func planMismatch(rng *rand.Rand, p Params) workload.Plan {
	const ops = 8
	plan := base()
	for i := 0; i < ops; i++ {
		first := newOp(&plan, rng, true)
		first.MaxTries = 3
		second := *first
		second.ID, second.After = len(plan.Ops), first.ID
		second.Amount += int64(100 * (1 + rng.IntN(5)))
		plan.Ops = append(plan.Ops, second)
	}
	workload.Route(plan.Ops, rng, p.Replicas)
	return plan
}

// planMissingKey: requests without a key, never retried.
func planMissingKey(rng *rand.Rand, p Params) workload.Plan {
	const ops = 6
	plan := base()
	for i := 0; i < ops; i++ {
		newOp(&plan, rng, false)
	}
	workload.Route(plan.Ops, rng, p.Replicas)
	return plan
}
