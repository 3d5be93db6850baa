package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// FailoverSeen is what a run on a replicated Redis saw of its store
// events: the replication link cut, the primary killed, the replica
// promoted, and which of the killed primary's records the new one lacks.
type FailoverSeen struct {
	// Replicated is how many replicas had every write when the link was
	// cut (WAIT's answer); LinkDown says the replica then saw its link down.
	Replicated int           `json:"replicated"`
	LinkDown   bool          `json:"link_down"`
	CutAt      time.Duration `json:"cut_at_ns"`
	// Held lists the run's Redis keys the primary held when it was killed
	// (the prefix cut off), Lost those of them the promoted replica lacks.
	Held     []string      `json:"held,omitempty"`
	Lost     []string      `json:"lost,omitempty"`
	KilledAt time.Duration `json:"killed_at_ns"`
	// CanaryLost: a key the harness wrote on the primary after the cut
	// is not on the new primary (a write acknowledged, then lost).
	CanaryLost bool `json:"canary_lost"`
	Promoted   bool `json:"promoted"`
	// Forced: Sentinel's own election had not promoted the replica in a
	// few seconds (a vote can elect no leader on a loaded machine), so the
	// harness forced the failover (SENTINEL FAILOVER): the same promotion
	// of the same replica, without the vote.
	Forced     bool          `json:"forced,omitempty"`
	PromotedAt time.Duration `json:"promoted_at_ns,omitempty"`
	OldPrimary string        `json:"old_primary,omitempty"`
	NewPrimary string        `json:"new_primary,omitempty"`
	Err        string        `json:"error,omitempty"` // why an event did not complete
}

// failoverPlan: stage 0 charges a few keys while the replica follows;
// the replication link is cut; stage 1 charges more keys, acknowledged by
// the primary alone; the primary is killed and Sentinel promotes the
// replica; stage 2 retries every key with its own body. How many keys
// each stage has comes from the seed.
func failoverPlan(rng *rand.Rand, p Params) workload.Plan {
	plan := base()
	kept, lost := 1+rng.IntN(2), 2+rng.IntN(2)
	keyedOps(&plan, rng, kept, 1)
	for _, op := range keyedOps(&plan, rng, lost, 1) {
		plan.Ops[op.ID].Stage = 1
	}
	for i := range kept + lost {
		again := plan.Ops[i]
		again.ID, again.Stage, again.MaxTries = len(plan.Ops), 2, 3
		plan.Ops = append(plan.Ops, again)
	}
	chain(plan.Ops) // one at a time; a wait on an earlier stage is met when the stage starts
	workload.Route(plan.Ops, rng, p.Replicas)
	plan.Events = []workload.StoreEvent{{Stage: 1, Action: workload.ReplCut}, {Stage: 2, Action: workload.PrimaryKill}}
	return plan
}

// assumeFailover: the failover really happened and really lost what the
// primary had acknowledged: the replica had the writes before the cut,
// saw its link down, was promoted by Sentinel, and lacks the harness's
// canary and (for a strategy that keeps records in Redis) at least one
// record the killed primary held.
func assumeFailover(o Observation) []string {
	f := o.Failover
	if f == nil {
		return []string{"the run has no replicated Redis: nothing failed over"}
	}
	var out []string
	if f.Err != "" {
		out = append(out, "the failover did not complete: "+f.Err)
	}
	if f.Replicated < 1 {
		out = append(out, "the replica did not have the writes made before the cut")
	}
	if !f.LinkDown {
		out = append(out, "the replica never saw its replication link down")
	}
	if !f.Promoted {
		out = append(out, "Sentinel never promoted the replica")
	}
	if !f.CanaryLost {
		out = append(out, "the new primary has the key written after the cut: nothing was lost")
	}
	if len(f.Held) > 0 && len(f.Lost) == 0 {
		out = append(out, fmt.Sprintf("the new primary has all %d records the killed primary held: %s", len(f.Held), strings.Join(f.Held, ", ")))
	}
	return out
}
