package scenarios

import (
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// maxTimelines bounds the keys whose full story a result keeps.
const maxTimelines = 5

// Timeline is the evidence of one key: every attempt and ledger charge for
// it, its Redis record if the strategy keeps one, and what was done to it:
// the in-target faults its attempts carried, the failpoints they passed, a
// gate's hold. A result saved before the last three were recorded has none.
type Timeline struct {
	Key      string               `json:"key"`
	Attempts []history.Attempt    `json:"attempts"`
	Charges  []history.Charge     `json:"charges"`
	Redis    *history.RedisRecord `json:"redis,omitempty"`
	// Injected lists the faults the plan placed inside the target on the
	// key's attempts (the client-side drop is Attempt.Fault).
	Injected []Injected `json:"injected,omitempty"`
	// Events are the failpoints the key's attempts passed, in arrival order.
	Events []Event `json:"events,omitempty"`
	// Held is a gate's hold of one of the key's attempts (forced-race).
	Held *Held `json:"held,omitempty"`
	// ProbesFrom is when the probes began: attempts sent from then on
	// check that the key replays or executes; zero: the run has no probes.
	ProbesFrom time.Duration `json:"probes_from_ns,omitempty"`
}

// Injected is an in-target fault placed on one attempt, as the plan wrote
// it ("pg-cut@before-commit"), and when the attempt reached its point.
type Injected struct {
	Attempt string        `json:"attempt"`
	Inject  api.Injection `json:"inject"`
	// Reached says the attempt reached the fault's point, At the moment it
	// did (the fault fired then); false: it never got there, or the target
	// records no failpoints.
	Reached bool          `json:"reached"`
	At      time.Duration `json:"at_ns,omitempty"`
}

// Held is an attempt a gate held at a failpoint until another attempt of
// its key reached the gate's release point (or, with none, was answered),
// or the gate timed out.
type Held struct {
	Attempt string        `json:"attempt"`
	Point   string        `json:"point"`
	From    time.Duration `json:"from_ns"`
	To      time.Duration `json:"to_ns"`
	// By is the attempt whose arrival at Until (or whose answer, Until
	// empty) released it; empty: the gate timed out.
	By    string `json:"by,omitempty"`
	Until string `json:"until"`
}

// timelines builds the timelines of the first keys the findings name.
func timelines(findings []check.Finding, obs Observation, plan workload.Plan, gate *GateSpec) []Timeline {
	var out []Timeline
	seen := map[string]bool{}
	for _, f := range findings {
		key := TimelineKey(f.Key)
		if key == "" || seen[key] || len(out) == maxTimelines {
			continue
		}
		seen[key] = true
		out = append(out, timelineOf(key, obs, plan, gate))
	}
	return out
}

// TimelineKey is the key whose timeline tells a finding on the key name:
// the checker names a key's later retention periods "key#2", "key#3" (a
// charge after the key expired is a new request), and the timeline is the
// key's whole story.
func TimelineKey(name string) string {
	i := strings.LastIndexByte(name, '#')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return name
		}
	}
	return name[:i]
}

func timelineOf(key string, obs Observation, plan workload.Plan, gate *GateSpec) Timeline {
	t := Timeline{Key: key}
	if h := obs.History; h.Quiesced > 0 {
		t.ProbesFrom = h.Quiesced + h.ClaimTimeout
	}
	for _, a := range obs.History.Attempts {
		if a.Key == key {
			t.Attempts = append(t.Attempts, a)
		}
	}
	for _, c := range obs.Ledger.Charges {
		if c.Key == key {
			t.Charges = append(t.Charges, c)
		}
	}
	for i := range obs.Ledger.Redis {
		if obs.Ledger.Redis[i].Key == key {
			t.Redis = &obs.Ledger.Redis[i]
		}
	}
	for _, e := range obs.Trace {
		if e.Key == key {
			t.Events = append(t.Events, e)
		}
	}
	t.Injected = injected(t.Attempts, t.Events, plan)
	if gate != nil {
		t.Held = held(t.Events, t.Attempts, *gate)
	}
	return t
}

// injected finds the in-target fault the plan placed on each attempt (by
// its op and try) and the moment the attempt reached the fault's point.
func injected(as []history.Attempt, events []Event, plan workload.Plan) []Injected {
	ops := map[int]workload.Op{}
	for _, o := range plan.Ops {
		ops[o.ID] = o
	}
	var out []Injected
	for _, a := range as {
		o, ok := ops[a.Op]
		if !ok || a.Hidden || a.Try < 1 || a.Try > o.MaxTries {
			continue
		}
		inj := o.TryAt(a.Try).Inject
		if inj.IsZero() {
			continue
		}
		in := Injected{Attempt: a.ID, Inject: inj}
		for _, e := range events {
			if e.Attempt == a.ID && e.Point == string(inj.Point) {
				in.Reached, in.At = true, e.At
				break
			}
		}
		out = append(out, in)
	}
	return out
}

// held reads a gate's hold from the key's events: the first attempt to
// reach the hold point waits there until another attempt reaches the
// release point (with none: until another attempt's answer), or the gate's
// timeout.
func held(events []Event, attempts []history.Attempt, g GateSpec) *Held {
	var h *Held
	for _, e := range events {
		switch {
		case h == nil && e.Point == string(g.Hold):
			h = &Held{Attempt: e.Attempt, Point: e.Point, Until: string(g.Until), From: e.At, To: e.At + g.Timeout}
		case h != nil && g.Until != "" && h.By == "" && e.Point == string(g.Until) && e.Attempt != h.Attempt && e.At < h.To:
			h.By, h.To = e.Attempt, max(e.At, h.From)
		}
	}
	if h == nil || g.Until != "" {
		return h
	}
	for _, a := range attempts {
		if a.ID != h.Attempt && a.Return > h.From && a.Return < h.To { // the earliest: To shrinks
			h.By, h.To = a.ID, a.Return
		}
	}
	return h
}
