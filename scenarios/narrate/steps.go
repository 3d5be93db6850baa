package narrate

import (
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
)

// stepKind is what a step of a unit is.
type stepKind int

const (
	sendStep   stepKind = iota // the client puts the request on the wire
	pointStep                  // the request reaches a failpoint inside the target
	answerStep                 // the target answers
	resultStep                 // the client learns how it ended
)

// step is one thing that happened, with what must happen before it.
type step struct {
	u     *unit
	kind  stepKind
	ev    scenarios.Event // pointStep only
	at    time.Duration   // when it was observed: used for causal edges, never printed in the story
	preds []*step
	done  bool
	// hold marks the point where a gate held the request; resume is set on
	// the step that follows it.
	hold   bool
	resume *resumeNote
}

// resumeNote says why a held request went on.
type resumeNote struct {
	by   *step // the step of another request that opened the gate (gateStory.released); nil: the gate timed out
	late *unit // with a timeout: a request that was still on its way to open it
}

// after records that p must be told before s.
func (s *step) after(p *step) {
	if p != nil && p != s {
		s.preds = append(s.preds, p)
	}
}

// buildSteps gives a unit its steps, in program order.
func buildSteps(u *unit) {
	first, last := u.first(), u.last()
	steps := []*step{{u: u, kind: sendStep, at: first.Call}}
	for _, e := range u.events {
		steps = append(steps, &step{u: u, kind: pointStep, ev: e, at: e.At})
	}
	if last.Server != nil {
		at := last.Server.End
		if first.Server != nil {
			at = first.Server.End
		}
		steps = append(steps, &step{u: u, kind: answerStep, at: at})
	}
	// A run of tries is told by its first: its result is the first one's.
	steps = placeResult(u, steps, &step{u: u, kind: resultStep, at: first.Return})
	for i := 1; i < len(steps); i++ {
		steps[i].after(steps[i-1])
	}
	u.steps = steps
}

// placeResult puts the client's result after the server's work, unless the
// client gave up while the server was still working (a client timeout): then
// it goes where it happened.
func placeResult(u *unit, steps []*step, r *step) []*step {
	if len(u.tries) > 1 || len(u.events) == 0 || !u.gaveUp() {
		return append(steps, r)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].at > r.at {
			return append(steps[:i], append([]*step{r}, steps[i:]...)...)
		}
	}
	return append(steps, r)
}

// find returns the unit's first step of kind (and point, for pointStep).
func (u *unit) find(kind stepKind, point string) *step {
	for _, s := range u.steps {
		if s.kind == kind && (kind != pointStep || s.ev.Point == point) {
			return s
		}
	}
	return nil
}

// firstServer is the unit's first step inside the target, if any.
func (u *unit) firstServer() *step {
	for _, s := range u.steps {
		if s.kind == pointStep || s.kind == answerStep {
			return s
		}
	}
	return nil
}

// final is the unit's last step.
func (u *unit) final() *step { return u.steps[len(u.steps)-1] }
