package scenarios

import "github.com/idemchaos/idemchaos/sim/workload"

// ProbePlan has one single-try op per key of plan, numbered after its ops:
// the probes sent once every fault has healed and the claim timeout passed.
func ProbePlan(plan workload.Plan) workload.Plan {
	var p workload.Plan
	seen := map[string]bool{}
	next := len(plan.Ops)
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
