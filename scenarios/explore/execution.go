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
	// Answered is, for each request, how many choices had been made when
	// its answer came in (-1: it never did).
	Answered []int          `json:"answered"`
	Ledger   history.Ledger `json:"ledger"`
	// Probe is a request of A's key and payload sent, unheld, once the
	// claim timeout had passed after a request met the in-flight status
	// with nothing else in flight: a claim that outlives it is stuck; nil
	// when none was needed.
	Probe *history.Attempt `json:"probe,omitempty"`
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
// ledger, with two things the scheduler knows better than timings the
// holds stretched. A duplicate (another request carries its payload) that
// waited on another and did not charge itself (it was answered the
// replay, or the in-flight status late) is a held_duplicate, unless the
// profile waits by design; a request that waited and then charged waited
// on the business's own lock (an account row), and its double charge is
// the finding. A request sent once every other had been answered that gets
// the in-flight status met a claim nothing holds (Alone): a stuck_key when
// a probe after the claim timeout meets it too (Execution.Probe).
func Judge(ex Execution, p api.Profile, twoStores bool) Outcome {
	judged := p
	judged.InFlightWait = true // held duplicates come from the waits below
	rep := check.Run(check.Input{History: history.History{Attempts: ex.Attempts}, Ledger: ex.Ledger, Profile: judged, TwoStores: twoStores})
	o := Outcome{Statuses: make([]int, 0, len(ex.Attempts))}
	for _, a := range ex.Attempts {
		o.Statuses = append(o.Statuses, a.Status)
	}
	for _, f := range rep.Findings {
		o.add(f.Anomaly, f.Detail)
	}
	if r, ok := heldBy(ex); ok && !p.InFlightWait {
		o.add(check.HeldDuplicate, "request "+Names[r:r+1]+", a duplicate, waited on another request instead of being answered at once, and did not charge")
	}
	if r, ok := Alone(ex, p); ok && ex.Probe != nil && p.IsInFlight(ex.Probe.Status) {
		o.add(check.StuckKey, "request "+Names[r:r+1]+" was sent once every other request had been answered and got the in-flight status, "+
			"and so did a probe sent after the claim timeout: the claim outlived its request")
	}
	if ex.Stalled != "" && o.Detail == "" {
		o.Detail = ex.Stalled
	}
	order := check.Names()
	slices.SortFunc(o.Anomalies, func(a, b check.Anomaly) int { return slices.Index(order, string(a)) - slices.Index(order, string(b)) })
	return o
}

// add records an anomaly, and its detail when it is the first.
func (o *Outcome) add(a check.Anomaly, detail string) {
	if !slices.Contains(o.Anomalies, a) {
		o.Anomalies = append(o.Anomalies, a)
	}
	if o.Detail == "" {
		o.Detail = detail
	}
}

// heldBy is the first request that waited, is a duplicate (another
// request carries its payload) and did not charge itself.
func heldBy(ex Execution) (int, bool) {
	for _, s := range ex.Steps {
		if !s.Waited || s.Request >= len(ex.Attempts) {
			continue
		}
		a := ex.Attempts[s.Request]
		dup := slices.ContainsFunc(ex.Attempts, func(b history.Attempt) bool { return b.ID != a.ID && b.Fingerprint == a.Fingerprint })
		if dup && !charged(ex, a) {
			return s.Request, true
		}
	}
	return 0, false
}

// charged reports whether a made a charge of its own: a ledger row naming
// it, or (a ledger without attempt ids) a 2xx naming a charge no earlier
// answer of the key named.
func charged(ex Execution, a history.Attempt) bool {
	for _, c := range ex.Ledger.Charges {
		if c.AttemptID == a.ID {
			return true
		}
	}
	if !ex.Ledger.NoAttemptIDs || a.ChargeID == "" || a.Outcome != history.Acked {
		return false
	}
	for _, b := range ex.Attempts {
		if b.ID != a.ID && b.ChargeID == a.ChargeID && b.Return <= a.Return {
			return false
		}
	}
	return true
}

// Alone is the first request answered a status of p's in-flight set that
// was sent once every other request had been answered: nothing else was
// in flight. Its key is stuck if a probe after the claim timeout meets
// the same (Execution.Probe).
func Alone(ex Execution, p api.Profile) (int, bool) {
	if len(ex.Answered) != len(ex.Attempts) {
		return 0, false
	}
	sent := map[int]int{} // request: the choice that sent it
	for i, s := range ex.Steps {
		if s.From == Send {
			sent[s.Request] = i
		}
	}
	for r, a := range ex.Attempts {
		if !p.IsInFlight(a.Status) {
			continue
		}
		alone := true
		for o, at := range ex.Answered {
			if o != r && (at < 0 || at > sent[r]) {
				alone = false
			}
		}
		if alone {
			return r, true
		}
	}
	return 0, false
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
		case p.IsInFlight(s) || p.IsMismatch(s):
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
