package engine

import (
	"context"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// topUpTimeout bounds one top-up.
const topUpTimeout = 10 * time.Second

// funder pays one top-up into the target, and says how it went (Err set
// when it failed; At is filled by runStages).
type funder func(ctx context.Context, t workload.TopUp) scenarios.TopUpDone

// storeEvents carries out a store event between two stages (nil: a
// target without a replicated store, whose plans have none).
type storeEvents func(ctx context.Context, e workload.StoreEvent)

// runStages runs the plan's main traffic on cl, stage by stage: each
// stage's top-ups are paid through fund, in plan order, once every op of
// the stages before it has finished, then its store events happen through
// event, then its ops run. A plan of one
// stage without top-ups runs as one cl.Run. It returns the attempts in
// call order and the top-ups as they were paid; a top-up that failed is
// recorded and the run goes on (its self-check makes the run
// inconclusive). Bounded as the plan is: every op by its tries, every
// top-up by fund's own timeout.
func runStages(ctx context.Context, cl *client.Client, plan workload.Plan, fund funder, event storeEvents,
	since func() time.Duration) ([]history.Attempt, []scenarios.TopUpDone) {
	attempts, paid, _ := runStagesWhile(ctx, cl, plan, fund, event, since, nil)
	return attempts, paid
}

// runStagesWhile is runStages that starts a stage after the first only
// while more says so, given the attempts so far (nil: every stage); it
// also returns how many stages it ran.
func runStagesWhile(ctx context.Context, cl *client.Client, plan workload.Plan, fund funder, event storeEvents,
	since func() time.Duration, more func([]history.Attempt) bool) ([]history.Attempt, []scenarios.TopUpDone, int) {
	if plan.Stages() == 1 && len(plan.TopUps) == 0 {
		return cl.Run(ctx, plan), nil, 1
	}
	var attempts []history.Attempt
	var paid []scenarios.TopUpDone
	for s := range plan.Stages() {
		if s > 0 && more != nil && !more(attempts) {
			return attempts, paid, s
		}
		stage, tops := plan.Stage(s)
		for _, t := range tops {
			if ctx.Err() != nil {
				return attempts, paid, s
			}
			at := since()
			done := fund(ctx, t)
			done.TopUp, done.At = t, at
			paid = append(paid, done)
		}
		for _, e := range plan.EventsAt(s) {
			if event != nil && ctx.Err() == nil {
				event(ctx, e)
			}
		}
		if len(stage.Ops) > 0 {
			attempts = append(attempts, cl.Run(ctx, stage)...)
		}
	}
	return attempts, paid, plan.Stages()
}
