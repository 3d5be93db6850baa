package strategytest

import (
	"context"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// hold pauses one attempt at the first of the armed points it reaches, until
// released (or until max passes, or the attempt's context ends, so a
// forgotten hold never hangs a test). Later points pass freely.
type hold struct {
	max     time.Duration
	reached chan api.Point
	release chan struct{}
	engage  sync.Once
	open    sync.Once
}

func newHold(max time.Duration) *hold {
	return &hold{max: max, reached: make(chan api.Point, 1), release: make(chan struct{})}
}

// arm installs the hold for attempt at each of points on fp.
func (h *hold) arm(fp *failpoint.Set, attempt string, points ...api.Point) {
	for _, p := range points {
		fp.Arm("hold-"+string(p), p, failpoint.Attempt(attempt), h.action)
	}
}

func (h *hold) action(ctx context.Context, hit failpoint.Hit) func() {
	first := false
	h.engage.Do(func() { first = true })
	if !first {
		return nil
	}
	h.reached <- hit.Point
	timer := time.NewTimer(h.max)
	defer timer.Stop()
	select {
	case <-h.release:
	case <-timer.C:
	case <-ctx.Done():
	}
	return nil
}

// free releases the held attempt; it may be called more than once.
func (h *hold) free() { h.open.Do(func() { close(h.release) }) }
