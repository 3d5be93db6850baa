package spec

import (
	"math/rand/v2"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// Plan builds the spec's plan for the given number of replicas from rng
// alone: the payments (some without a key), their duplicates, the changed
// amounts, the routes, then the faults.
func (s Spec) Plan(rng *rand.Rand, replicas int) workload.Plan {
	plan := s.accounts()
	t := s.Traffic
	keyless := pickSet(rng, t.Keys, countOf(t.WithoutKey, t.Keys))
	var dups []int
	for i := 0; i < t.Keys; i++ {
		first := s.newOp(&plan, rng, !keyless[i])
		if keyless[i] {
			continue
		}
		if t.Together {
			first.Group = i
		}
		dups = s.duplicate(&plan, *first, dups)
	}
	s.changeAmounts(&plan, rng, dups)
	workload.Route(plan.Ops, rng, replicas)
	s.placeFaults(&plan, rng)
	return plan
}

// accounts opens the spec's accounts.
func (s Spec) accounts() workload.Plan {
	var p workload.Plan
	for i := 1; i <= s.Accounts.Count; i++ {
		p.Accounts = append(p.Accounts, workload.Account{ID: workload.AccountID(i), Currency: workload.Currency, Opening: s.Accounts.Opening})
	}
	return p
}

// newOp appends a payment: an account, an amount, a key (or none) and a
// start offset, drawn in that order. A payment without a key is sent once.
func (s Spec) newOp(p *workload.Plan, rng *rand.Rand, keyed bool) *workload.Op {
	t := s.Traffic
	op := workload.Op{ID: len(p.Ops), Account: workload.AccountID(1 + rng.IntN(s.Accounts.Count)),
		Amount: t.Amount.Min + rng.Int64N(t.Amount.Max-t.Amount.Min+1), Currency: workload.Currency,
		Group: -1, After: -1, MaxTries: 1}
	if keyed {
		op.Key, op.MaxTries = workload.NewKey(rng), s.Retries.MaxTries
	}
	if t.Spread > 0 {
		op.Delay = time.Duration(rng.Int64N(int64(t.Spread)))
	}
	p.Ops = append(p.Ops, op)
	return &p.Ops[len(p.Ops)-1]
}

// duplicate appends the duplicates of first: in its barrier group, or each
// after the previous request of the key. It returns dups with their ids added.
func (s Spec) duplicate(p *workload.Plan, first workload.Op, dups []int) []int {
	prev := first.ID
	for d := 0; d < s.Traffic.Duplicates; d++ {
		op := first
		op.ID = len(p.Ops)
		if !s.Traffic.Together {
			op.After, op.Delay = prev, 0
		}
		p.Ops = append(p.Ops, op)
		prev = op.ID
		dups = append(dups, op.ID)
	}
	return dups
}

// changeAmounts adds 1 to (max − min + 1) to the amount of a share of the
// duplicates: the same key with another payload.
func (s Spec) changeAmounts(p *workload.Plan, rng *rand.Rand, dups []int) {
	a := s.Traffic.Amount
	n := countOf(s.Traffic.ChangedAmount, len(dups))
	for _, j := range rng.Perm(len(dups))[:n] {
		p.Ops[dups[j]].Amount += 1 + rng.Int64N(a.Max-a.Min+1)
	}
}

// pickSet marks k of n indexes, picked from rng.
func pickSet(rng *rand.Rand, n, k int) []bool {
	out := make([]bool, n)
	for _, i := range rng.Perm(n)[:k] {
		out[i] = true
	}
	return out
}
