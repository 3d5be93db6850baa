package narrate

import (
	"github.com/idemchaos/idemchaos/scenarios"
)

// gateStory is what the scenario's gate did to the story's key.
type gateStory struct {
	spec     scenarios.GateSpec
	held     *step // the point where the gate held a request
	next     *step // the held request's next step
	released *step // the step of another request that opened the gate; nil: it timed out
}

// linkGate finds the request the gate held (the first of the key to reach
// the hold point: the gate holds no other) and what released it, and orders
// the story accordingly: the others passed the hold point after it, and it
// went on only after its release.
func (s *story) linkGate() {
	sc, err := scenarios.Lookup(s.rec.Cell.Scenario)
	if err != nil || sc.Gate == nil || s.key == "" {
		return
	}
	g := &gateStory{spec: *sc.Gate}
	hold, ok := s.firstAt(string(g.spec.Hold))
	if !ok {
		return
	}
	g.held = s.pointStep(hold)
	if g.held == nil {
		return
	}
	g.held.hold = true
	g.next = nextOf(g.held)
	for _, u := range s.units {
		if p := u.find(pointStep, string(g.spec.Hold)); p != nil && p != g.held {
			p.after(g.held)
		}
	}
	g.released = s.releaser(g)
	if g.next != nil {
		g.next.resume = &resumeNote{by: g.released}
		g.next.after(g.released)
	}
	s.gate = g
}

// firstAt is the story key's first event at point, in arrival order.
func (s *story) firstAt(point string) (scenarios.Event, bool) {
	var best scenarios.Event
	found := false
	for _, e := range s.rec.Obs.Trace {
		if e.Key == s.key && e.Point == point && (!found || e.Seq < best.Seq) {
			best, found = e, true
		}
	}
	return best, found
}

// pointStep is the story step of a trace event, or nil.
func (s *story) pointStep(e scenarios.Event) *step {
	for _, u := range s.units {
		for _, st := range u.steps {
			if st.kind == pointStep && st.ev.Seq == e.Seq {
				return st
			}
		}
	}
	return nil
}

// nextOf is the step after st in its unit, or nil.
func nextOf(st *step) *step {
	for i, x := range st.u.steps {
		if x == st && i+1 < len(st.u.steps) {
			return st.u.steps[i+1]
		}
	}
	return nil
}

// releaser is another request's arrival at the gate's release point while
// the held request waited, or nil.
func (s *story) releaser(g *gateStory) *step {
	var best *step
	for _, u := range s.units {
		if u == g.held.u {
			continue
		}
		p := u.find(pointStep, string(g.spec.Until))
		if p == nil || p.ev.Seq < g.held.ev.Seq || !g.waiting(p) {
			continue
		}
		if best == nil || p.ev.Seq < best.ev.Seq {
			best = p
		}
	}
	return best
}

// waiting reports whether p came while the held request still waited.
func (g *gateStory) waiting(p *step) bool {
	switch {
	case g.next == nil:
		return true
	case g.next.kind == pointStep:
		return p.ev.Seq < g.next.ev.Seq
	}
	return p.at <= g.next.at
}
