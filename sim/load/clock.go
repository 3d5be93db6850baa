package load

import (
	"context"
	"time"
)

// Clock is the time source of a run, on the run's own timeline: Now is the
// time since the run's start. It is injected so that tests can run the
// scheduler on a fake clock.
type Clock interface {
	// Now returns the time elapsed since the run's start.
	Now() time.Duration
	// Timer returns a channel that receives once Now() has reached at, and a
	// function that releases the timer.
	Timer(at time.Duration) (<-chan time.Time, func() bool)
}

// sleeper is a clock that waits for a due time itself, sooner after it
// than a Timer would fire: the open model waits with it for every request.
type sleeper interface {
	// SleepUntil returns once Now() has reached at (true), or once ctx has
	// ended (false).
	SleepUntil(ctx context.Context, at time.Duration) bool
}

// Real is the wall clock, counted from Start.
type Real struct{ Start time.Time }

// NewReal returns a wall clock whose zero is now.
func NewReal() Real { return Real{Start: time.Now()} }

// Now returns the time since Start (monotonic).
func (c Real) Now() time.Duration { return time.Since(c.Start) }

// Timer fires when Now() reaches at.
func (c Real) Timer(at time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(at - c.Now())
	return t.C, t.Stop
}

// Precise is the wall clock of a run against a real target: Real, whose
// waits for a due time end sooner after it (SleepUntil). Real alone is the
// clock of the scheduler's tests, on synctest's fake time, which a kernel
// timer would not move. Close releases its timer.
type Precise struct {
	Real
	w *waker
}

// NewPrecise returns a precise wall clock whose zero is now.
func NewPrecise() Precise { return Precise{NewReal(), newWaker()} }

// Close releases the clock's kernel timer.
func (c Precise) Close() error { return c.w.close() }

// sleepSlice bounds one sleep of SleepUntil: how late it sees ctx end.
const sleepSlice = 10 * time.Millisecond

// SleepUntil waits until Now() reaches at on a kernel timer of its own (a
// timerfd, read through Go's poller: the goroutine parks and its P is
// free meanwhile), in slices of at most sleepSlice. A Go timer wakes a
// process that has nothing else to do on the millisecond (epoll_wait's
// unit), up to a millisecond late, and an open model that counts latency
// from the due time would count that lateness in every request it sends.
// Where there is no such timer, or a second goroutine sleeps meanwhile,
// the wait is a Go timer's.
func (c Precise) SleepUntil(ctx context.Context, at time.Duration) bool {
	for ctx.Err() == nil {
		d := at - c.Now()
		if d <= 0 {
			return true
		}
		c.w.sleep(min(d, sleepSlice))
	}
	return false
}
