package load

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// TestPreciseSleepUntil: the precise clock's wait ends at its due time,
// never before (two goroutines waiting at once too), and as soon as the
// run's context ends.
func TestPreciseSleepUntil(t *testing.T) {
	c := NewPrecise()
	defer c.Close()
	at := c.Now() + 3*time.Millisecond
	if !c.SleepUntil(t.Context(), at) || c.Now() < at {
		t.Fatalf("woke at %v, due %v", c.Now(), at)
	}
	woke := make(chan time.Duration, 2)
	at = c.Now() + 5*time.Millisecond
	for range 2 {
		go func() { c.SleepUntil(t.Context(), at); woke <- c.Now() }()
	}
	for range 2 {
		if w := <-woke; w < at {
			t.Fatalf("one of two waits woke at %v, due %v", w, at)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if c.SleepUntil(ctx, c.Now()+time.Hour) {
		t.Fatal("an ended context, and the wait says it reached its due time")
	}
	ctx, cancel = context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	done := make(chan bool)
	go func() { done <- c.SleepUntil(ctx, c.Now()+time.Hour) }()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("cancelled, and the wait says it reached its due time")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not see its context end")
	}
}

// sleepingClock records the waits it is asked for; its Timer must not be used.
type sleepingClock struct {
	mu    sync.Mutex
	now   time.Duration
	slept []time.Duration
}

func (c *sleepingClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}
func (c *sleepingClock) Timer(time.Duration) (<-chan time.Time, func() bool) {
	panic("waitUntil used a timer on a clock that sleeps itself")
}
func (c *sleepingClock) SleepUntil(_ context.Context, at time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept, c.now = append(c.slept, at), at
	return true
}

// TestOpenModelWaitsOnTheClocksSleep: the open model waits for each due
// time with the clock's own sleep where it has one (Precise).
func TestOpenModelWaitsOnTheClocksSleep(t *testing.T) {
	c := &sleepingClock{}
	rep, err := Run(t.Context(), Config{Rate: 100, Duration: 50 * time.Millisecond, Seed: 1}, c,
		func(context.Context, Request) (a history.Attempt) { return a })
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond, 40 * time.Millisecond}
	if !slices.Equal(c.slept, want) || len(rep.Samples) != 5 {
		t.Errorf("slept until %v (%d sent), want %v (5 sent; the first is due at once)", c.slept, len(rep.Samples), want)
	}
}

// BenchmarkWake: how late past its due time an open model's wait ends,
// in microseconds (p50-late-us, p90-late-us), with Go's timer (Real) and
// with the precise clock's timerfd, a due time every 2.5 ms on an
// otherwise idle process. Run both in one go: go test -bench Wake ./sim/load.
func BenchmarkWake(b *testing.B) {
	for _, c := range []struct {
		name  string
		clock Clock
	}{{"timer", NewReal()}, {"timerfd", NewPrecise()}} {
		b.Run(c.name, func(b *testing.B) {
			var late []time.Duration
			start := c.clock.Now()
			for i := 1; b.Loop(); i++ {
				at := start + Intended(i, 400) // every 2.5 ms, as an open model at 400/s
				waitUntil(b.Context(), c.clock, at)
				late = append(late, c.clock.Now()-at)
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-late-us")
			b.ReportMetric(float64(late[len(late)*9/10].Microseconds()), "p90-late-us")
		})
	}
}
