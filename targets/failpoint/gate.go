package failpoint

import (
	"context"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Gate forces an interleaving: the first request of a key to reach Hold waits
// there until another request of the same key reaches Until (when set) or
// is answered (Finished: all it did happened while the first was held), or
// Timeout passes. It is how forced-race shows a check-then-act race on
// every run: released by the other's answer only, the held request goes on
// after everything the other did, its stored response included, so the
// race ends the same way every time.
type Gate struct {
	Hold    api.Point
	Until   api.Point
	Timeout time.Duration

	mu      sync.Mutex
	waiting map[string]*held
	engaged int
	opened  int
}

type held struct {
	attempt string
	release chan struct{}
	once    sync.Once
}

// Arm installs the gate's two hooks on s for every request.
func (g *Gate) Arm(s *Set) {
	g.mu.Lock()
	g.waiting = map[string]*held{}
	g.mu.Unlock()
	s.Arm("gate-hold", g.Hold, Any, g.hold)
	if g.Until != "" {
		s.Arm("gate-open", g.Until, Any, g.open)
	}
}

func (g *Gate) hold(ctx context.Context, h Hit) func() {
	g.mu.Lock()
	if h.Key == "" || g.waiting[h.Key] != nil {
		g.mu.Unlock()
		return nil
	}
	w := &held{attempt: h.AttemptID, release: make(chan struct{})}
	g.waiting[h.Key] = w
	g.engaged++
	g.mu.Unlock()
	t := time.NewTimer(g.Timeout)
	defer t.Stop()
	select {
	case <-w.release:
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

func (g *Gate) open(_ context.Context, h Hit) func() {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.waiting[h.Key]
	if w == nil || w.attempt == h.AttemptID {
		return nil
	}
	w.once.Do(func() {
		close(w.release)
		g.opened++
	})
	return nil
}

// Finished says that a request of key, attempt, was answered: a request of
// the key held by the gate is released, unless it is that one.
func (g *Gate) Finished(key, attempt string) {
	g.open(context.Background(), Hit{Key: key, AttemptID: attempt})
}

// Stats reports how many requests the gate held and how many of those another
// request released (the rest timed out).
func (g *Gate) Stats() (engaged, opened int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.engaged, g.opened
}
