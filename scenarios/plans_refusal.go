package scenarios

import (
	"math/rand/v2"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// The shape of business-refusal: trials on accounts of their own, each
// retried once, then by together clients released at once.
const (
	refusalTrials   = 3
	refusalTogether = 3
)

// planRefusal: per trial, on an account of its own, a charge of more than
// the account holds is declined (stage 0); the account is then funded
// with exactly that amount (a top-up before stage 1), so that one charge
// of it fits and never two; the same key and body are retried, once,
// then by clients released together (stage 1); last, a fresh key charges
// the same amount on the account (stage 2): where the refusal was kept,
// it goes through, the proof that the top-up funded the account, and
// leaves the account as it was before the run. Where the target has
// several replicas, the single retry's first try goes to another replica
// than the declined charge, as a load balancer may send it: a claim that
// stayed with the replica (or the connection) that declined is then met
// from outside.
func planRefusal(rng *rand.Rand, p Params) workload.Plan {
	plan := base()
	type trial struct {
		key, account string
		amount       int64
	}
	trials := make([]trial, refusalTrials)
	for i := range trials {
		t := trial{key: workload.NewKey(rng), account: workload.AccountID(1 + i%accounts), amount: opening + int64(100*(1+rng.IntN(20)))}
		trials[i] = t
		addCharge(&plan, t.key, t.account, t.amount, 0, -1, -1)
		plan.TopUps = append(plan.TopUps, workload.TopUp{Stage: 1, Account: t.account, Amount: t.amount})
	}
	for i, t := range trials {
		retry := addCharge(&plan, t.key, t.account, t.amount, 1, -1, -1)
		for range refusalTogether {
			addCharge(&plan, t.key, t.account, t.amount, 1, retry, i)
		}
	}
	for _, t := range trials {
		addCharge(&plan, workload.NewKey(rng), t.account, t.amount, 2, -1, -1)
	}
	workload.Route(plan.Ops, rng, p.Replicas)
	for i := range trials {
		declined, retry := plan.Ops[i].Tries[0].Replica, &plan.Ops[refusalTrials+i*(1+refusalTogether)].Tries[0]
		retry.Replica = (declined + 1 + rng.IntN(max(p.Replicas-1, 1))) % max(p.Replicas, 1)
	}
	return plan
}

// addCharge appends a charge of amount on account with key, in stage,
// after the op at index after (-1: none), released with group (-1: none);
// it returns the op's index. A 409 or a failure is retried.
func addCharge(p *workload.Plan, key, account string, amount int64, stage, after, group int) int {
	p.Ops = append(p.Ops, workload.Op{ID: len(p.Ops), Key: key, Account: account, Amount: amount,
		Currency: workload.Currency, Group: group, After: after, MaxTries: 3, Stage: stage})
	return len(p.Ops) - 1
}
