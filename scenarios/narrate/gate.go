package narrate

import (
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
)

// gateStory is what the scenario's gate did to the story's key.
type gateStory struct {
	spec scenarios.GateSpec
	held *step // the point where the gate held a request
	next *step // the held request's next step
	// released is the step of another request that opened the gate: its
	// arrival at the release point, or the end of its try (the client got
	// its answer); nil: the gate timed out.
	released *step
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
	if g.released == nil {
		g.released = s.answerer(g)
	}
	if g.next != nil {
		g.next.resume = &resumeNote{by: g.released, late: s.late(g)}
		g.next.after(g.released)
		s.linkResume(g)
	}
	s.gate = g
}

// racePoint is where a request racing the held one is too late once the
// gate gave up: the release point, or (a gate its answer opens) its commit.
func (g *gateStory) racePoint() string {
	if g.spec.Until == "" {
		return string(api.AfterCommit)
	}
	return string(g.spec.Until)
}

// resumedAt is when the held request was let go: at its release, else when
// the gate's timeout ran out.
func (g *gateStory) resumedAt() time.Duration {
	if g.released != nil {
		return g.released.at
	}
	return g.held.at + g.spec.Timeout
}

// linkResume: a request sent after the gate let the held one go is told
// after it went on.
func (s *story) linkResume(g *gateStory) {
	t := g.resumedAt()
	for _, u := range s.units {
		if u != g.held.u && u.steps[0].at > t {
			u.steps[0].after(g.next)
		}
	}
}

// late is a request of the key that was already on the server when the
// gate gave up, and reached the release point afterwards; nil if the gate
// opened or no request was on its way.
func (s *story) late(g *gateStory) *unit {
	if g.released != nil {
		return nil
	}
	t := g.resumedAt()
	for _, u := range s.units {
		srv := u.first().Server
		if u != g.held.u && srv != nil && srv.Start < t && u.find(pointStep, g.racePoint()) != nil {
			return u
		}
	}
	return nil
}

// unforced reports a gate that gave up waiting while another request of the
// key was still on its way to the release point: the run did not force the
// interleaving it was built to force (the machine was slower than the
// gate's patience).
func (s *story) unforced() bool {
	return s.gate != nil && s.gate.next != nil && s.gate.next.resume.late != nil
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
	if g.spec.Until == "" {
		return nil
	}
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

// answerer is another request of the key whose try ended while the held
// request waited, when the held one went on well before the gate's timeout:
// the gate opens on such an answer (failpoint.Gate.Finished). Nil when
// the held request waited out the timeout, or none ended meanwhile.
func (s *story) answerer(g *gateStory) *step {
	if g.next == nil || g.next.at >= g.held.at+g.spec.Timeout*9/10 {
		return nil
	}
	var best *step
	for _, u := range s.units {
		end := u.find(resultStep, "")
		if u == g.held.u || end == nil || end.at < g.held.at || end.at > g.next.at {
			continue
		}
		if best == nil || end.at < best.at {
			best = end
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
