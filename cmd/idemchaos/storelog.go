package main

import (
	"context"
	"io"
	"sync"
)

// maxHeld bounds the provisioning lines held back: the first ones, those
// of the stores' start, are what a failure needs.
const maxHeld = 64 << 10

// storeLog is where provisioning talks (the stores' start, and the
// replicated stores a cell starts): with --verbose, stderr as it happens;
// with --quiet, nowhere; else held back, and shown only when the stores
// fail to start (show), so that a run that goes well says nothing of them.
type storeLog struct {
	mu   sync.Mutex
	w    io.Writer
	hold bool
	held []byte
}

func (c common) storeLog(stderr io.Writer) *storeLog {
	switch {
	case c.verbose:
		return &storeLog{w: stderr}
	case c.quiet:
		return &storeLog{w: io.Discard}
	}
	return &storeLog{w: stderr, hold: true}
}

func (l *storeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.hold {
		return l.w.Write(p)
	}
	if len(l.held) < maxHeld {
		l.held = append(l.held, p[:min(len(p), maxHeld-len(l.held))]...)
	}
	return len(p), nil
}

// show writes what was held back, when the stores failed to start; not
// when the run was interrupted, which says so itself.
func (l *storeLog) show(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hold && ctx.Err() == nil {
		_, _ = l.w.Write(l.held)
	}
	l.held = nil
}
