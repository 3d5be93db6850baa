package client

import (
	"context"
	"sync"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// barrier releases a group of ops together, once all of them have arrived.
type barrier struct {
	mu      sync.Mutex
	waiting int
	release chan struct{}
}

type barriers map[int]*barrier

func newBarriers(ops []workload.Op) barriers {
	b := barriers{}
	for _, op := range ops {
		if op.Group < 0 {
			continue
		}
		if b[op.Group] == nil {
			b[op.Group] = &barrier{release: make(chan struct{})}
		}
		b[op.Group].waiting++
	}
	return b
}

// pass blocks until every op of group has arrived; false if ctx ended first.
func (b barriers) pass(ctx context.Context, group int) bool {
	g := b[group]
	if g == nil {
		return true
	}
	g.mu.Lock()
	g.waiting--
	if g.waiting == 0 {
		close(g.release)
	}
	g.mu.Unlock()
	return wait(ctx, g.release)
}
