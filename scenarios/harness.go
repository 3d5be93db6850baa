package scenarios

import (
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// The harness's own hand in a run, told to the checker: how long it held
// each request inside the target, and when it had a store link faulted.
// What the harness holds is never the service's fault: a duplicate that
// waited behind a gated original is judged against the original's own
// time, and a 5xx met while a link was faulted is the fault's.

// faultGrace is how long after a faulted request ended its link fault may
// still show: a pooled connection the fault broke, failing on its next use.
const faultGrace = 250 * time.Millisecond

// harnessInput adds to in what the harness held (the trace's holds at
// points: a gate, a delay; a slowed link, from the point to the request's
// answer) and when it faulted a store link (from the injection's point,
// or the try's send for a fault applied from outside, to its answer).
func harnessInput(in *check.Input, plan workload.Plan, obs Observation) {
	held := map[string]time.Duration{}
	arrived := map[string]time.Duration{} // attempt and point: the first arrival
	seen := map[string]bool{}
	for _, e := range obs.Trace {
		if e.Left > e.At {
			held[e.Attempt] += e.Left - e.At
		}
		if k := e.Attempt + "\x00" + e.Point; !seen[k] {
			seen[k], arrived[k] = true, e.At
		}
	}
	tries := map[[2]int]*history.Attempt{}
	for i := range obs.History.Attempts {
		if a := &obs.History.Attempts[i]; !a.Hidden && a.Outcome != history.NotSent {
			tries[[2]int{a.Op, a.Try}] = a
		}
	}
	for _, f := range plan.Faults() {
		a := tries[[2]int{f.Op, f.Try}]
		if a == nil || !touchesLink(f.Inject.Action) {
			continue
		}
		from, ok := arrived[a.ID+"\x00"+string(f.Inject.Point)]
		if !ok {
			from = a.Call // applied from outside as the try was sent (or its point never reached)
		}
		to := max(a.Return, from+f.Inject.Arg) // latency from outside lasts its duration
		in.Faulted = append(in.Faulted, check.Window{From: from, To: to + faultGrace})
		if f.Inject.Action == api.PGLatency && a.Return > from {
			held[a.ID] += a.Return - from
		}
	}
	if len(held) > 0 {
		in.Held = held
	}
}

// touchesLink reports whether an action faults a store link the requests
// share (a cut, lost replies, latency, the primary's crash).
func touchesLink(a api.Action) bool {
	switch a {
	case api.PGCut, api.RedisCut, api.DynamoDBCut, api.PGDropReply, api.PGLatency, api.PGCrash:
		return true
	}
	return false
}
