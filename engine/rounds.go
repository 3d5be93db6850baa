package engine

import (
	"context"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// powered is when a race-hunting cell against a service sends its next
// round: while its same-key overlaps are short of its power aim and its
// budget is not spent (nil for every other cell: all its stages run).
func powered(c scenarios.Cell, sc scenarios.Scenario, since func() time.Duration) func([]history.Attempt) bool {
	if !c.Powered(sc) {
		return nil
	}
	goal := c.Goal(sc)
	return func(atts []history.Attempt) bool {
		return goal.More(scenarios.Overlaps(history.History{Attempts: atts}), since())
	}
}

// holdProbes sends the hold probes, on the client of the main traffic once
// it is over, and marks them.
func holdProbes(ctx context.Context, cl *client.Client, hold workload.Plan) []history.Attempt {
	out := cl.Run(ctx, hold)
	for i := range out {
		out[i].HoldProbe = true
	}
	return out
}

// withOps is plan with ops added (its own ops untouched).
func withOps(plan workload.Plan, ops []workload.Op) workload.Plan {
	plan.Ops = append(slices.Clone(plan.Ops), ops...)
	return plan
}
