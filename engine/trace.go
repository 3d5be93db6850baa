package engine

import (
	"context"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// maxTrace bounds the trace kept per run.
const maxTrace = 10000

// tracer records every failpoint hit, in arrival order, and when the
// request left the point.
type tracer struct {
	mu    sync.Mutex
	since func() time.Duration
	list  []scenarios.Event
	// last is the latest event of each attempt at each point, for leave.
	last map[passage]int
}

// passage is one attempt at one point.
type passage struct {
	attempt string
	point   api.Point
}

// arm installs the tracer at every point; arm it before any gate so that
// arrival, not release, is recorded.
func (t *tracer) arm(s *failpoint.Set) {
	for _, p := range api.Points() {
		s.Arm("trace", p, failpoint.Any, t.record)
	}
}

// armLeave records when a request leaves each point: arm it after every
// gate and injection, so that what they held the request is recorded
// (Event.Left).
func (t *tracer) armLeave(s *failpoint.Set) {
	for _, p := range api.Points() {
		s.Arm("trace-leave", p, failpoint.Any, t.leave)
	}
}

func (t *tracer) record(_ context.Context, h failpoint.Hit) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.list) < maxTrace {
		if t.last == nil {
			t.last = map[passage]int{}
		}
		t.last[passage{h.AttemptID, h.Point}] = len(t.list)
		t.list = append(t.list, scenarios.Event{Seq: len(t.list) + 1, Point: string(h.Point), Attempt: h.AttemptID,
			Key: h.Key, Replica: h.Replica, At: t.since()})
	}
	return nil
}

func (t *tracer) leave(_ context.Context, h failpoint.Hit) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i, ok := t.last[passage{h.AttemptID, h.Point}]; ok {
		t.list[i].Left = t.since()
	}
	return nil
}

func (t *tracer) events() []scenarios.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]scenarios.Event(nil), t.list...)
}
