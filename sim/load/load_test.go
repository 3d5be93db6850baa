package load

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// The scheduler tests run inside a synctest bubble: the clock is fake, it
// starts at the bubble's epoch and moves only when every goroutine of the
// test is blocked, so nothing really sleeps and every time is exact.

// target is a fake payment server on the fake clock.
type target struct {
	clock   Clock
	service func(r Request) time.Duration // how long request r takes
	serial  chan struct{}                 // non-nil: one request at a time (a global lock)
}

func (t *target) send(ctx context.Context, r Request) history.Attempt {
	if t.serial != nil {
		select {
		case t.serial <- struct{}{}:
			defer func() { <-t.serial }()
		case <-ctx.Done():
			return history.Attempt{ID: "x", Outcome: history.Indeterminate, Err: "aborted"}
		}
	}
	if d := t.service(r); d > 0 {
		waitUntil(ctx, t.clock, t.clock.Now()+d)
	}
	return history.Attempt{Key: r.Key, Status: http.StatusCreated, Outcome: history.Acked}
}

func fixed(d time.Duration) func(Request) time.Duration {
	return func(Request) time.Duration { return d }
}

// runFake runs c against a fake target inside a bubble.
func runFake(t *testing.T, c Config, service func(Request) time.Duration, serial bool) Report {
	t.Helper()
	var rep Report
	synctest.Test(t, func(t *testing.T) {
		clock := NewReal() // inside the bubble, the wall clock is the fake one
		tg := &target{clock: clock, service: service}
		if serial {
			tg.serial = make(chan struct{}, 1)
		}
		var err error
		rep, err = Run(t.Context(), c, clock, tg.send)
		if err != nil {
			t.Fatal(err)
		}
	})
	return rep
}

func TestArrivalTimesAreExact(t *testing.T) {
	for _, rate := range []float64{100, 3, 0.5, 20000} {
		c := Config{Rate: rate, Duration: min(2*time.Second, time.Duration(5000/rate*float64(time.Second)))}
		rep := runFake(t, c, fixed(0), false)
		if len(rep.Samples) != c.Scheduled() || rep.Missed != 0 {
			t.Fatalf("rate %g: %d sent, %d missed, want %d sent", rate, len(rep.Samples), rep.Missed, c.Scheduled())
		}
		for i, s := range rep.Samples {
			want := time.Duration(float64(i) * float64(time.Second) / rate)
			if d := s.Intended - want; d < -1 || d > 1 || s.Request.Index != i {
				t.Fatalf("rate %g: request %d due at %s, want %s", rate, i, s.Intended, want)
			}
			if s.Sent != s.Intended || s.Latency() != 0 {
				t.Fatalf("rate %g: request %d sent at %s (due %s), latency %s on an instant target",
					rate, i, s.Sent, s.Intended, s.Latency())
			}
		}
	}
}

func TestScheduledCountsTheWindow(t *testing.T) {
	cases := []struct {
		rate  float64
		d     time.Duration
		count int
		want  int
	}{
		{100, time.Second, 0, 100},
		{100, 1001 * time.Millisecond, 0, 101},
		{3, time.Second, 0, 3},
		{3, 1001 * time.Millisecond, 0, 4},
		{0.5, 10 * time.Second, 0, 5},
		{1000, 10 * time.Second, 50, 50},
		{20000, MaxDuration, 0, MaxCount},
	}
	for _, tc := range cases {
		c := Config{Rate: tc.rate, Duration: tc.d, Count: tc.count}
		if got := c.Scheduled(); got != tc.want {
			t.Errorf("rate %g over %s (count %d): %d scheduled, want %d", tc.rate, tc.d, tc.count, got, tc.want)
		}
		if n := c.Scheduled(); n > 0 && n < c.count() && Intended(n-1, tc.rate) >= tc.d {
			t.Errorf("rate %g: request %d is due after the window", tc.rate, n-1)
		}
	}
}

func TestCountBoundStopsTheOpenModel(t *testing.T) {
	rep := runFake(t, Config{Rate: 1000, Duration: 10 * time.Second, Count: 50}, fixed(time.Millisecond), false)
	if len(rep.Samples) != 50 || rep.Scheduled != 50 {
		t.Fatalf("%d sent of %d scheduled, want 50", len(rep.Samples), rep.Scheduled)
	}
	if end := rep.Elapsed(); end != 49*time.Millisecond+time.Millisecond {
		t.Fatalf("run ended at %s, want 50ms", end)
	}
}

func TestDurationBoundsTheOpenModel(t *testing.T) {
	d := 2500 * time.Millisecond
	rep := runFake(t, Config{Rate: 100, Duration: d}, fixed(3*time.Millisecond), false)
	if len(rep.Samples) != 250 {
		t.Fatalf("%d sent, want 250", len(rep.Samples))
	}
	last := rep.Samples[len(rep.Samples)-1]
	if last.Intended >= d || rep.Elapsed() != last.Intended+3*time.Millisecond {
		t.Fatalf("last due at %s, run ended at %s", last.Intended, rep.Elapsed())
	}
	if got := rep.Throughput(); got < 99 || got > 101 {
		t.Fatalf("throughput %.2f/s, want 100/s", got)
	}
}

// A stall must show in every request that was due during it, not only in the
// one that stalled: here the client has one slot, so the requests due during
// the stall wait for it, and their latency counts from their due time.
func TestClientSideQueueShowsInLatencies(t *testing.T) {
	stall := func(r Request) time.Duration {
		if r.Index == 10 {
			return time.Second
		}
		return time.Millisecond
	}
	rep := runFake(t, Config{Rate: 100, Inflight: 1, Duration: 2 * time.Second}, stall, false)
	checkStallVisible(t, rep)
	// The naive measure (send to completion) sees a single slow request.
	naive := 0
	for _, s := range rep.Samples {
		if s.Done-s.Sent >= 100*time.Millisecond {
			naive++
		}
	}
	if naive != 1 {
		t.Fatalf("%d requests slow from their actual send, want only the stalled one", naive)
	}
}

// The same with the queue inside the server (one request at a time behind a
// lock) and plenty of client slots: the requests were sent on time and still
// waited.
func TestServerSideQueueShowsInLatencies(t *testing.T) {
	stall := func(r Request) time.Duration {
		if r.Index == 10 {
			return time.Second
		}
		return time.Millisecond
	}
	rep := runFake(t, Config{Rate: 100, Duration: 2 * time.Second}, stall, true)
	checkStallVisible(t, rep)
	for _, s := range rep.Samples {
		if s.Queued() != 0 {
			t.Fatalf("request %d sent %s late; the client had free slots", s.Request.Index, s.Queued())
		}
	}
}

// checkStallVisible: request 10 (due at 100ms) holds the target for 1s and
// every other request takes 1ms, one at a time: request i completes at
// max(its due time, the previous completion) + 1ms, so the requests due
// during the stall complete one by one after it, each late by its wait.
func checkStallVisible(t *testing.T, rep Report) {
	t.Helper()
	if len(rep.Samples) != 200 || rep.Missed != 0 {
		t.Fatalf("%d sent, %d missed, want 200 and 0", len(rep.Samples), rep.Missed)
	}
	slow := 0
	var prev time.Duration
	for _, s := range rep.Samples {
		service := time.Millisecond
		if s.Request.Index == 10 {
			service = time.Second
		}
		done := max(s.Intended, prev) + service
		prev = done
		if s.Latency() != done-s.Intended {
			t.Fatalf("request %d: latency %s, want %s", s.Request.Index, s.Latency(), done-s.Intended)
		}
		if s.Latency() >= 100*time.Millisecond {
			slow++
		}
	}
	if slow < 90 {
		t.Fatalf("%d requests show the stall, want the ~100 due during it", slow)
	}
}

// A target that never catches up: the due requests that could not get a slot
// before Duration+Grace are counted as missed, and the run still ends.
func TestMissedRequestsAreCounted(t *testing.T) {
	c := Config{Rate: 100, Inflight: 2, Duration: time.Second, Grace: 500 * time.Millisecond}
	rep := runFake(t, c, fixed(5*time.Second), false)
	if len(rep.Samples) != 2 || rep.Missed != 98 || rep.Scheduled != 100 {
		t.Fatalf("%d sent, %d missed of %d, want 2 and 98 of 100", len(rep.Samples), rep.Missed, rep.Scheduled)
	}
	if rep.Elapsed() != 5010*time.Millisecond {
		t.Fatalf("ended at %s, want 5.01s (the second request's completion)", rep.Elapsed())
	}
}

func TestCancelStopsTheOpenModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := NewReal()
		ctx, cancel := context.WithCancel(t.Context())
		tg := &target{clock: clock, service: fixed(time.Millisecond)}
		go func() {
			waitUntil(ctx, clock, 505*time.Millisecond)
			cancel()
		}()
		rep, err := Run(ctx, Config{Rate: 100, Duration: 10 * time.Second}, clock, tg.send)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Samples) != 51 || rep.Missed != 949 {
			t.Fatalf("%d sent, %d missed after a cancel at 505ms, want 51 and 949", len(rep.Samples), rep.Missed)
		}
	})
}

func TestClosedModelRunsBackToBack(t *testing.T) {
	rep := runFake(t, Config{Workers: 4, Duration: time.Second}, fixed(10*time.Millisecond), false)
	if len(rep.Samples) != 400 || rep.Model != Closed {
		t.Fatalf("%d sent (%s model), want 400: 4 workers x 100 requests of 10ms", len(rep.Samples), rep.Model)
	}
	for i, s := range rep.Samples {
		if s.Request.Index != i || s.Latency() != 10*time.Millisecond || s.Queued() != 0 {
			t.Fatalf("request %d (index %d): latency %s, queued %s", i, s.Request.Index, s.Latency(), s.Queued())
		}
	}
}

func TestClosedModelCountBound(t *testing.T) {
	rep := runFake(t, Config{Workers: 8, Duration: time.Minute, Count: 30}, fixed(time.Millisecond), false)
	if len(rep.Samples) != 30 {
		t.Fatalf("%d sent, want 30", len(rep.Samples))
	}
	if rep.Elapsed() > 4*time.Millisecond {
		t.Fatalf("30 requests on 8 workers took %s, want 4ms", rep.Elapsed())
	}
}

// In the closed model a stall slows the offered load down and hides the
// queue: the latencies show one slow request, as wrk or pgbench would.
func TestClosedModelHidesTheStall(t *testing.T) {
	stall := func(r Request) time.Duration {
		if r.Index == 10 {
			return time.Second
		}
		return 10 * time.Millisecond
	}
	rep := runFake(t, Config{Workers: 1, Duration: 2 * time.Second}, stall, false)
	slow := 0
	for _, s := range rep.Samples {
		if s.Latency() >= 100*time.Millisecond {
			slow++
		}
	}
	if slow != 1 || len(rep.Samples) != 10+1+90 { // 10 x 10ms, the 1s stall, 90 x 10ms
		t.Fatalf("%d slow of %d, want 1 of 101", slow, len(rep.Samples))
	}
}

func TestTimedAttemptCountsFromTheIntendedTime(t *testing.T) {
	s := Sample{Intended: time.Second, Sent: 3 * time.Second, Done: 3500 * time.Millisecond,
		Attempt: history.Attempt{Call: 3 * time.Second, Return: 3500 * time.Millisecond, Status: 201}}
	a := s.Timed()
	if a.Return-a.Call != 2500*time.Millisecond || s.Latency() != 2500*time.Millisecond || s.Queued() != 2*time.Second {
		t.Fatalf("timed attempt %s..%s, latency %s, queued %s", a.Call, a.Return, s.Latency(), s.Queued())
	}
}

// A clock whose zero is earlier than the run (the harness's own start): the
// schedule counts from the run's first reading.
func TestRunStartsAtTheClocksReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := NewReal()
		waitUntil(t.Context(), clock, 3*time.Second)
		tg := &target{clock: clock, service: fixed(time.Millisecond)}
		rep, err := Run(t.Context(), Config{Rate: 10, Duration: time.Second}, clock, tg.send)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Start != 3*time.Second || len(rep.Samples) != 10 || rep.Samples[9].Intended != 3900*time.Millisecond {
			t.Fatalf("start %s, %d sent, last due %s", rep.Start, len(rep.Samples), rep.Samples[len(rep.Samples)-1].Intended)
		}
		if rep.Elapsed() != 901*time.Millisecond {
			t.Fatalf("elapsed %s, want 901ms", rep.Elapsed())
		}
	})
}
