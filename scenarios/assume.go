package scenarios

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// assumeOverlap: at least one pair of same-key attempts overlapped on the
// server, or the run never raced anything.
func assumeOverlap(o Observation) []string {
	byKey := map[string][]*history.ServerView{}
	blind := !serverSeen(o)
	for _, a := range o.History.Attempts {
		switch {
		case a.Key == "":
		case a.Server != nil:
			byKey[a.Key] = append(byKey[a.Key], a.Server)
		case blind && a.Outcome != history.NotSent: // no server log: the client's view
			byKey[a.Key] = append(byKey[a.Key], &history.ServerView{Start: a.Call, End: a.Return})
		}
	}
	for _, views := range byKey {
		if overlapping(views) {
			return nil
		}
	}
	return []string{"no two same-key requests were ever in flight together on the server"}
}

func overlapping(views []*history.ServerView) bool {
	for i := range views {
		for j := i + 1; j < len(views); j++ {
			if views[i].Start <= views[j].End && views[j].Start <= views[i].End {
				return true
			}
		}
	}
	return false
}

// assumeFaultFired: at least one faulted attempt reached the server and its
// client never saw the answer.
func assumeFaultFired(o Observation) []string {
	planned := 0
	blind, charged := !serverSeen(o), map[string]bool{}
	for _, c := range o.Ledger.Charges {
		charged[c.Key] = true
	}
	for _, a := range o.History.Attempts {
		if a.Fault == "" {
			continue
		}
		planned++
		if a.Outcome == history.Indeterminate && (a.Server != nil || blind && charged[a.Key]) {
			return nil
		}
	}
	return []string{fmt.Sprintf("none of the %d planned faults hid a server answer from its client", planned)}
}

// generic assumptions hold for every scenario.
func assumeGeneric(o Observation, hidden int) []string {
	var out []string
	if o.Ledger.RowsAtStart > 0 {
		out = append(out, fmt.Sprintf("the ledger held %d charges before the run", o.Ledger.RowsAtStart))
	}
	if hidden > 0 {
		out = append(out, fmt.Sprintf("%d attempts reached the server that the client never sent on purpose (transport re-sends)", hidden))
	}
	if o.Unsettled {
		out = append(out, fmt.Sprintf("the ledger was still changing %s after the last request: charges landed late (raise --settle if the service commits slowly)",
			o.Settled.Round(time.Millisecond)))
	}
	return out
}

// assumeInjected: at least one planned in-target fault really fired, and
// on a user's service each store proxy cut met the service's traffic
// (assumeCutsMet).
func assumeInjected(o Observation) []string {
	if unmet := assumeCutsMet(o); len(unmet) > 0 {
		return unmet
	}
	if o.Injected > 0 {
		return nil
	}
	return []string{"no planned fault fired inside the target (no request reached its failpoint)"}
}

// assumeOutlasted: a client timed out inside the service's own charge
// (a try of a key with no answer in time and no fault of the plan on it),
// and a later try of that key got its 2xx: the service worked on past its
// client, and the retries met the key in flight or its replay.
func assumeOutlasted(o Observation) []string {
	timedOut := map[string]time.Duration{} // key: the first such try's send
	for _, a := range o.History.Attempts {
		if a.Key != "" && a.Fault == "" && a.TimedOut() {
			if at, ok := timedOut[a.Key]; !ok || a.Call < at {
				timedOut[a.Key] = a.Call
			}
		}
	}
	for _, a := range o.History.Attempts {
		if at, ok := timedOut[a.Key]; ok && a.Outcome == history.Acked && a.Call > at {
			return nil
		}
	}
	return []string{"no try timed out inside the service's charge and then got its key's answer on a retry: nothing outlasted the client " +
		"(is the charge still as slow as it was measured?)"}
}

// assumeGateEngaged: the gate held at least one request.
func assumeGateEngaged(o Observation) []string {
	if o.GateHeld > 0 {
		return nil
	}
	return []string{"the gate never held a request: no interleaving was forced"}
}

// serverSeen: the target logged at least one attempt (the built-in ones do;
// a user's service does not).
func serverSeen(o Observation) bool {
	for _, a := range o.History.Attempts {
		if a.Server != nil {
			return true
		}
	}
	return false
}

// assumeService is what a user's service must have done for its run to
// mean anything at all, findings or not: answered as a payment API (not
// only 404/405: the wrong path).
func assumeService(o Observation) []string {
	return append(assumeAnswered(o), assumeRightPath(o)...)
}

// assumeAnswered: a run none of whose requests got an HTTP answer within
// the client's timeout, and whose keys hold no charge, from a service that
// answered before it (else the runner's error says the service is down),
// exercised nothing: the service was too slow for the scenario's timings
// (a loaded machine), or stopped answering. One whose keys hold charges
// worked, and is judged on them.
func assumeAnswered(o Observation) []string {
	if len(statuses(o)) > 0 || len(o.Ledger.Charges) > 0 {
		return nil
	}
	lost, _ := unanswered(o)
	if lost == 0 {
		return nil
	}
	return []string{fmt.Sprintf("none of the %d requests got an HTTP answer within the client's timeout, and the ledger holds no charge "+
		"under the run's keys: the service was too slow for the scenario's timings here (a loaded machine?), or stopped answering", lost)}
}

// assumeFromPlan derives the self-checks of a passing run on a user's
// service from what its plan exercised: a keyed charge accepted at least
// once, released groups overlapping, dropped responses hiding an answer,
// store faults firing, and the gate (gated: the scenario forces an
// interleaving through the service's failpoints) holding a request.
func assumeFromPlan(plan workload.Plan, gated bool) func(Observation) []string {
	var checks []func(Observation) []string
	if gated {
		checks = append(checks, assumeGateEngaged)
	}
	if planKeyed(plan) {
		checks = append(checks, assumeAccepted)
	}
	groups := map[int]int{}
	for _, op := range plan.Ops {
		if op.Group >= 0 {
			groups[op.Group]++
		}
	}
	for _, n := range groups {
		if n > 1 {
			checks = append(checks, assumeOverlap)
			break
		}
	}
	drops, injects := false, false
	for _, f := range plan.Faults() {
		drops, injects = drops || f.Fault != "", injects || !f.Inject.IsZero()
	}
	if drops {
		checks = append(checks, assumeFaultFired)
	}
	if injects {
		checks = append(checks, assumeInjected)
	}
	return allOf(checks)
}

// assumeRightPath: a service that answered every request 404 or 405 was
// asked at the wrong path; its answers prove nothing about idempotency.
func assumeRightPath(o Observation) []string {
	st := statuses(o)
	if len(st) == 0 {
		return nil
	}
	for code := range st {
		if code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
			return nil
		}
	}
	return []string{fmt.Sprintf("every answer was %s: the service was asked at the wrong path (check the URL's prefix and --path)",
		statusText(st))}
}

// assumeAccepted: a run whose keyed charges were all refused (a body the
// service does not take, unknown accounts) never exercised a key.
func assumeAccepted(o Observation) []string {
	for _, a := range o.History.Attempts {
		if a.Key != "" && a.Outcome == history.Acked {
			return nil
		}
	}
	st := statuses(o)
	if len(st) == 0 {
		return nil // nothing answered: the runner says so
	}
	if lost, sent := unanswered(o); 2*lost > sent {
		return []string{fmt.Sprintf("no charge with a key was accepted: %d of %d requests got no answer within the client's timeout (answers: %s): the service was too slow for the scenario's timings (a loaded machine?)",
			lost, sent, statusText(st))}
	}
	if serverErrors(st) {
		return []string{fmt.Sprintf("no charge with a key was accepted: every answer was a server error (%s), so no retry could show the key recovering",
			statusText(st))}
	}
	return []string{fmt.Sprintf("no charge with a key was accepted (answers: %s): check --body, --path and --accounts",
		statusText(st))}
}

// unanswered counts the keyed requests that got no answer (a timeout, a
// connection error) out of those sent.
func unanswered(o Observation) (lost, sent int) {
	for _, a := range o.History.Attempts {
		if a.Key == "" || a.Hidden || a.Outcome == history.NotSent {
			continue
		}
		sent++
		if a.Status == 0 {
			lost++
		}
	}
	return lost, sent
}

// serverErrors reports whether every status in st is a 5xx: the service
// took the requests and failed them (a store down, an error it stored and
// replays), which no change of --body or --path would mend.
func serverErrors(st map[int]int) bool {
	for code := range st {
		if code < 500 {
			return false
		}
	}
	return true
}

// statuses counts the HTTP answers the client got, by status.
func statuses(o Observation) map[int]int {
	out := map[int]int{}
	for _, a := range o.History.Attempts {
		if a.Status != 0 && !a.Hidden {
			out[a.Status]++
		}
	}
	return out
}

// statusText writes status counts as "404 ×12, 405 ×3", by status.
func statusText(m map[int]int) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d ×%d", code, m[code]))
	}
	return strings.Join(parts, ", ")
}

// planKeyed reports whether the plan sends a request with a key.
func planKeyed(plan workload.Plan) bool {
	return slices.ContainsFunc(plan.Ops, func(op workload.Op) bool { return op.Key != "" })
}
