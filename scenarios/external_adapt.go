package scenarios

import (
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// adaptation says how scenario sc, whose built-in plan is plan, is changed
// to run against t, the service's measured timing in hand (nil: not
// measured), or why it cannot run (skip). With the failpoint protocol
// nothing changes: the faults fire at their points, as in a built-in
// target. Without it, a delay that only outlasts the client (sc.Outlast)
// becomes a client timed out inside the service's own charge, other
// in-target delays are left out, and store faults are placed from outside
// around the faulted request.
func (t External) adaptation(sc Scenario, timing *Timing, plan workload.Plan) (ad *Adaptation, skip string) {
	if t.Failpoints {
		return nil, ""
	}
	var notes []string
	if sc.Outlast {
		note, policy, why := outlast(timing)
		if why != "" {
			return nil, why
		}
		ad = &Adaptation{Policy: &policy}
		notes = append(notes, note)
	}
	notes = append(notes, t.faultNotes(sc, plan)...)
	if len(notes) == 0 {
		return nil, ""
	}
	if ad == nil {
		ad = &Adaptation{}
	}
	ad.Notes = notes
	return ad, ""
}

// outlast adapts a scenario whose delay outlasts the client to a service
// whose charge takes timing.Charge.
func outlast(timing *Timing) (note string, p client.Policy, skip string) {
	switch {
	case timing == nil:
		return "", p, "needs the service's charge time measured first, which the runner does"
	case timing.Charge < MinOutlast:
		return "", p, fmt.Sprintf("the service charges in %s (median of %d): too fast to time a client out inside the charge from outside (%s or more); "+
			"give --failpoints (docs/failpoints.md) or run the service with a slower charge", ShortDuration(timing.Charge), len(timing.Samples), MinOutlast)
	}
	p = outlastPolicy(timing.Charge)
	note = fmt.Sprintf("adapted to the service's %s charge (median of %d, measured first), no delay inside the service: per-try timeout %s, "+
		"retries %s to %s apart, for about twice the charge (in flight, past any claim TTL shorter than the charge, then after it)",
		ShortDuration(timing.Charge), len(timing.Samples), ShortDuration(p.PerTry), ShortDuration(p.Backoff), ShortDuration(p.MaxBackoff))
	return note, p, ""
}

// faultNotes says what became of the plan's in-target faults without the
// failpoint protocol: left out, or placed from outside on a store proxy.
func (t External) faultNotes(sc Scenario, plan workload.Plan) []string {
	counts, order := map[api.Injection]int{}, []api.Injection{}
	for _, f := range plan.Faults() {
		in := f.Inject
		if in.IsZero() {
			continue
		}
		if counts[in] == 0 {
			order = append(order, in)
		}
		counts[in]++
	}
	var notes []string
	for _, in := range order {
		n := counts[in]
		switch {
		case in.Action == api.Delay && sc.Outlast: // said by outlast
		case !in.Action.CutsLink() && !t.carries(in):
			notes = append(notes, fmt.Sprintf("%s left out: %s inside the service needs --failpoints", plural(n, "in-target fault"), in))
		case in.Action == api.PGLatency:
			notes = append(notes, fmt.Sprintf("%s of Postgres latency on the %s proxy from the faulted request's start, for %s, from outside (%s: at %s needs --failpoints)",
				ShortDuration(in.Arg), t.PostgresProxy, ShortDuration(in.Arg), plural(n, "request"), in.Point))
		default:
			notes = append(notes, fmt.Sprintf("%s placed from outside, for the whole faulted request (%s: at %s needs --failpoints)",
				linkCut(in.Action, t), plural(n, "request"), in.Point))
		}
	}
	return notes
}

func linkCut(a api.Action, t External) string {
	return cutStore(a) + " cuts on the " + t.proxyOf(a) + " proxy"
}

// proxyOf names the proxy a store cut takes down.
func (t External) proxyOf(a api.Action) string {
	switch a {
	case api.RedisCut:
		return t.RedisProxy
	case api.DynamoDBCut:
		return t.DynamoDBProxy
	}
	return t.PostgresProxy
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ShortDuration rounds d for a sentence: to the millisecond from 10ms up,
// else to the tenth of one.
func ShortDuration(d time.Duration) time.Duration {
	if d >= 10*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Microsecond)
}
