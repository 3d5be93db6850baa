package engine

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
)

// serviceFailpoints is the harness's side of the failpoint protocol for one
// cell of a service that speaks it (docs/failpoints.md): a failpoint.Set
// armed as a built-in deployment arms its own (a tracer at every point,
// the scenario's gate, one action per planned injection, whose link faults
// land on the user's store proxies), evaluated by a control endpoint on
// loopback whose URL every request carries.
type serviceFailpoints struct {
	set   *failpoint.Set
	gate  *failpoint.Gate
	trace *tracer
	srv   *remote.Server
}

// armFailpoints arms the cell's failpoints and starts their control endpoint.
func (r *Service) armFailpoints(sc scenarios.Scenario, plan workload.Plan, since func() time.Duration, cuts *cutLog) (*serviceFailpoints, error) {
	f := &serviceFailpoints{set: &failpoint.Set{}, trace: &tracer{since: since}}
	f.trace.arm(f.set) // before the gate: arrival, not release, is recorded
	if sc.Gate != nil {
		f.gate = &failpoint.Gate{Hold: sc.Gate.Hold, Until: sc.Gate.Until, Timeout: sc.Gate.Timeout}
		f.gate.Arm(f.set)
	}
	armInjections(f.set, plan, links{pg: r.pgLink, redis: r.redisLink, dynamo: r.dynamo, cuts: cuts})
	f.trace.armLeave(f.set) // after the gate and the injections: what they held is recorded
	srv, err := remote.Listen(f.set)
	if err != nil {
		return nil, err
	}
	f.srv = srv
	return f, nil
}

// header puts the control URL of the try's replica on every request.
func (f *serviceFailpoints) header(op workload.Op, try int) http.Header {
	return http.Header{remote.Header: {f.srv.URL(op.TryAt(try).Replica)}}
}

// close stops the control endpoint and ends every request still open on
// it, so its faults heal.
func (f *serviceFailpoints) close() error {
	if f == nil || f.srv == nil {
		return nil
	}
	err := f.srv.Close()
	f.srv = nil
	return err
}

// observe records what fired, as a built-in deployment does. A run whose
// scenario needs the service's points (a gate, an injection at a point)
// and that saw none, though the service accepted a charge, is an error:
// the service does not speak the protocol, and nothing it did can be
// judged. One that accepted none shows nothing of the protocol (a service
// too slow for the client's timeout reaches its points after its client
// gave up, if ever): it is judged, and proves nothing (its assumptions
// say why).
func (f *serviceFailpoints) observe(obs *scenarios.Observation, sc scenarios.Scenario, plan workload.Plan) error {
	obs.Injected = f.set.Fired()["inject"]
	obs.Trace = f.trace.events()
	if f.gate != nil {
		obs.GateHeld, _ = f.gate.Stats()
	}
	if len(obs.Trace) > 0 || sc.Gate == nil && !injects(plan) || !anyAccepted(obs.History.Attempts) {
		return nil
	}
	return fmt.Errorf("--failpoints: the service never called the control URL of the %s header in %d requests: does it speak the failpoint protocol (docs/failpoints.md)?",
		remote.Header, len(obs.History.Attempts))
}

// anyAccepted reports whether a request was accepted (a 2xx).
func anyAccepted(atts []history.Attempt) bool {
	return slices.ContainsFunc(atts, func(a history.Attempt) bool { return a.Outcome == history.Acked })
}

// injects reports whether a plan fires a fault inside the target.
func injects(plan workload.Plan) bool {
	for _, f := range plan.Faults() {
		if !f.Inject.IsZero() {
			return true
		}
	}
	return false
}

// closeFailpoints ends the protocol's side of a cell, then heals the store
// proxies whatever is left on them.
func (r *Service) closeFailpoints(f *serviceFailpoints) error {
	if f == nil {
		return nil
	}
	return errors.Join(f.close(), r.heal())
}
