package explore

import (
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Send is the name of a request's first hold: before it is sent.
const Send = "send"

// Step is a request leaving one of its holds, released by a choice:
// before it was sent (Send), or a failpoint it had reached.
type Step struct {
	Request int    `json:"request"`
	From    string `json:"from"`
	// Waited: released, it neither reached its next point nor answered
	// within the bound: it waited on another request (a lock), and the
	// others were released around it until it moved.
	Waited bool `json:"waited,omitempty"`
}

// Execution is one order as it ran: its choices, the step each released,
// the attempts as the client saw them and the ground truth of its key.
type Execution struct {
	Order    Order             `json:"order"`
	Steps    []Step            `json:"steps"`
	Attempts []history.Attempt `json:"attempts"`
	Ledger   history.Ledger    `json:"ledger"`
	// Stalled says why the execution could not finish (every request
	// waiting and none moving within the bound); "": it finished.
	Stalled string `json:"stalled,omitempty"`
}

// Outcome is what an execution showed.
type Outcome struct {
	// Anomalies are the invariants it broke, in the catalog's order.
	Anomalies []check.Anomaly `json:"anomalies,omitempty"`
	// Statuses are the requests' answers, in request order (0: none).
	Statuses []int `json:"statuses"`
	// Detail is the first finding's evidence, "" when it held.
	Detail string `json:"detail,omitempty"`
}

// Holds reports whether the execution broke nothing.
func (o Outcome) Holds() bool { return len(o.Anomalies) == 0 }

// Judge checks an execution: the checker on its attempts and its key's
// ledger, with one difference: every request was held by the harness at
// every point, so a duplicate's wait is told by the scheduler (a release
// that did not move: Step.Waited), never read from timings the holds
// stretched. A wait is a held_duplicate, unless the profile waits by
// design.
func Judge(ex Execution, p api.Profile, twoStores bool) Outcome {
	judged := p
	judged.InFlightWait = true // held duplicates come from the waits below
	rep := check.Run(check.Input{History: history.History{Attempts: ex.Attempts}, Ledger: ex.Ledger, Profile: judged, TwoStores: twoStores})
	o := Outcome{Statuses: make([]int, 0, len(ex.Attempts))}
	for _, a := range ex.Attempts {
		o.Statuses = append(o.Statuses, a.Status)
	}
	for _, f := range rep.Findings {
		if !slices.Contains(o.Anomalies, f.Anomaly) {
			o.Anomalies = append(o.Anomalies, f.Anomaly)
		}
		if o.Detail == "" {
			o.Detail = f.Detail
		}
	}
	if !p.InFlightWait && slices.ContainsFunc(ex.Steps, func(s Step) bool { return s.Waited }) && !slices.Contains(o.Anomalies, check.HeldDuplicate) {
		o.Anomalies = append(o.Anomalies, check.HeldDuplicate)
		if o.Detail == "" {
			o.Detail = waitDetail(ex)
		}
	}
	if ex.Stalled != "" && o.Detail == "" {
		o.Detail = ex.Stalled
	}
	order := check.Names()
	slices.SortFunc(o.Anomalies, func(a, b check.Anomaly) int { return slices.Index(order, string(a)) - slices.Index(order, string(b)) })
	return o
}

// waitDetail says which request waited, at which step.
func waitDetail(ex Execution) string {
	for _, s := range ex.Steps {
		if s.Waited {
			return "request " + Names[s.Request:s.Request+1] + ", released from " + s.From + ", waited on another request instead of being answered at once"
		}
	}
	return ""
}

// Class names an outcome in a word or two, for the lattice: the first
// anomaly (money first, as the catalog orders them), else how the
// requests after the first were answered: refused (the in-flight or a
// mismatch status), replayed, or each executed (nothing shared).
func (o Outcome) Class(p api.Profile) string {
	if len(o.Anomalies) > 0 {
		return string(o.Anomalies[0])
	}
	refused, ok := false, 0
	for _, s := range o.Statuses {
		switch {
		case s == p.InFlight || s == p.Mismatch:
			refused = true
		case s >= 200 && s < 300:
			ok++
		}
	}
	switch {
	case refused:
		return ClassRefused
	case ok > 1:
		return ClassReplayed
	}
	return ClassHeld
}

// Trail writes an execution's steps as its order's two columns would:
// "A send, B send, A after-check, ...".
func (ex Execution) Trail() string {
	parts := make([]string, len(ex.Steps))
	for i, s := range ex.Steps {
		parts[i] = Names[s.Request:s.Request+1] + " " + s.From
		if s.Waited {
			parts[i] += " (waited)"
		}
	}
	return strings.Join(parts, ", ")
}
