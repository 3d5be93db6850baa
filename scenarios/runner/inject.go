package runner

import (
	"context"
	"time"

	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// armInjections arms one failpoint action per planned injection, matched on
// the attempt id of the try that carries it.
func (d *deployment) armInjections(plan workload.Plan, attemptID func(op, try int) string) error {
	for _, f := range plan.Faults() {
		if f.Inject == "" {
			continue
		}
		in, err := api.ParseInjection(f.Inject)
		if err != nil {
			return err
		}
		d.failpoints.Arm("inject", in.Point, failpoint.Attempt(attemptID(f.Op, f.Try)), d.action(in))
	}
	return nil
}

// action turns an injection into what runs at the failpoint. Link faults
// heal when the request that fired them ends.
func (d *deployment) action(in api.Injection) failpoint.Action {
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
		return linkFault(d.pgLink, func(l *fault.Link) error { return l.Inject(fault.Latency, in.Arg) })
	case api.RedisCut:
		return linkFault(d.redisLink, (*fault.Link).Cut)
	}
	return linkFault(d.pgLink, (*fault.Link).Cut)
}

func linkFault(l *fault.Link, apply func(*fault.Link) error) failpoint.Action {
	return func(context.Context, failpoint.Hit) func() {
		if err := apply(l); err != nil {
			return nil
		}
		return func() { _ = l.Heal() }
	}
}
