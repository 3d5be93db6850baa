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

// tracer records every failpoint hit, in arrival order.
type tracer struct {
	mu    sync.Mutex
	since func() time.Duration
	list  []scenarios.Event
}

// arm installs the tracer at every point; arm it before any gate so that
// arrival, not release, is recorded.
func (t *tracer) arm(s *failpoint.Set) {
	for _, p := range api.Points() {
		s.Arm("trace", p, failpoint.Any, t.record)
	}
}

func (t *tracer) record(_ context.Context, h failpoint.Hit) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.list) < maxTrace {
		t.list = append(t.list, scenarios.Event{Seq: len(t.list) + 1, Point: string(h.Point), Attempt: h.AttemptID,
			Key: h.Key, Replica: h.Replica, At: t.since()})
	}
	return nil
}

func (t *tracer) events() []scenarios.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]scenarios.Event(nil), t.list...)
}
