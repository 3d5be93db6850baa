package load

import "time"

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
