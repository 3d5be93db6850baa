package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// injection is a parsed "ACTION[:DURATION]@POINT".
type injection struct {
	action string
	arg    time.Duration
	point  failpoint.Point
}

// Actions a plan can inject inside the target.
var injectActions = map[string]bool{"pg-cut": true, "redis-cut": true, "pg-latency": true, "delay": true}

func parseInjection(spec string) (injection, error) {
	var in injection
	what, where, ok := strings.Cut(spec, "@")
	if !ok {
		return in, fmt.Errorf("injection %q: want ACTION@POINT", spec)
	}
	p, err := failpoint.ParsePoint(where)
	if err != nil {
		return in, fmt.Errorf("injection %q: %w", spec, err)
	}
	in.point = p
	name, arg, hasArg := strings.Cut(what, ":")
	if !injectActions[name] {
		return in, fmt.Errorf("injection %q: unknown action %q", spec, name)
	}
	in.action = name
	if hasArg {
		if in.arg, err = time.ParseDuration(arg); err != nil || in.arg <= 0 || in.arg > 10*time.Second {
			return in, fmt.Errorf("injection %q: duration %q not in (0, 10s]", spec, arg)
		}
	}
	return in, nil
}

// armInjections arms one failpoint action per planned injection, matched on
// the attempt id of the try that carries it.
func (d *deployment) armInjections(plan workload.Plan, attemptID func(op, try int) string) error {
	for _, f := range plan.Faults() {
		if f.Inject == "" {
			continue
		}
		in, err := parseInjection(f.Inject)
		if err != nil {
			return err
		}
		d.failpoints.Arm("inject", in.point, failpoint.Attempt(attemptID(f.Op, f.Try)), d.action(in))
	}
	return nil
}

// action turns an injection into what runs at the failpoint. Link faults
// heal when the request that fired them ends.
func (d *deployment) action(in injection) failpoint.Action {
	switch in.action {
	case "delay":
		return func(ctx context.Context, _ failpoint.Hit) func() {
			t := time.NewTimer(in.arg)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			return nil
		}
	case "pg-latency":
		return linkFault(d.pgLink, func(l *fault.Link) error { return l.Inject(fault.Latency, in.arg) })
	case "redis-cut":
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
