package engine

import (
	"context"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// links are the store links where an injection's link faults land; nil
// where a target has none (a built-in target has no DynamoDB).
type links struct {
	pg, redis, dynamo *fault.Link
	repl              *cellReplication // nil off the replicated Postgres
	cuts              *cutLog          // a user's service's: its cuts diverted and recorded; nil: disabled
}

// carries reports whether an action can be carried: a delay always, a link
// fault when its store link is there.
func (l links) carries(a api.Action) bool {
	switch a {
	case api.Delay:
		return true
	case api.RedisCut:
		return l.redis != nil
	case api.DynamoDBCut:
		return l.dynamo != nil
	case api.StandbyLag, api.PGCrash:
		return false // the replicated Postgres's: cellReplication.carries
	}
	return l.pg != nil
}

// armInjections arms on set one action per planned injection the links
// carry, matched on the attempt id of the try that carries it (a target
// without a link has plans without its faults: External.Skip and adapt).
func armInjections(set *failpoint.Set, plan workload.Plan, l links) {
	for _, f := range plan.Faults() {
		in := f.Inject
		if in.IsZero() {
			continue
		}
		match := failpoint.Attempt(client.AttemptID(f.Op, f.Try))
		switch {
		case l.repl.carries(in.Action):
			l.repl.arm(set, in, match)
		case l.carries(in.Action):
			set.Arm("inject", in.Point, match, l.action(in))
		}
	}
}

// action turns an injection into what runs at the failpoint. Link faults
// heal when the request that fired them ends.
func (l links) action(in api.Injection) failpoint.Action {
	switch in.Action {
	case api.Delay:
		return func(ctx context.Context, _ failpoint.Hit) func() {
			t := time.NewTimer(in.Arg)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			return nil
		}
	case api.PGLatency:
		return linkFault(l.pg, func(l *fault.Link) error { return l.Inject(fault.Latency, in.Arg) })
	case api.RedisCut:
		return l.cut(l.redis, in.Action)
	case api.DynamoDBCut:
		return l.cut(l.dynamo, in.Action)
	case api.PGDropReply:
		return linkFault(l.pg, func(l *fault.Link) error { return l.Inject(fault.LoseReplies, 0) })
	}
	return l.cut(l.pg, in.Action)
}

// cut takes link down for the request that fires it: disabled on a
// built-in target (its links are its own code's), diverted and recorded on
// a user's service (cutLog).
func (l links) cut(link *fault.Link, a api.Action) failpoint.Action {
	if l.cuts == nil {
		return linkFault(link, (*fault.Link).Cut)
	}
	return func(_ context.Context, h failpoint.Hit) func() { return l.cuts.cut(link, a, h.AttemptID) }
}

func linkFault(l *fault.Link, apply func(*fault.Link) error) failpoint.Action {
	return func(context.Context, failpoint.Hit) func() {
		if err := apply(l); err != nil {
			return nil
		}
		return func() { _ = l.Heal() }
	}
}
