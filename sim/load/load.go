// Package load puts a bounded, seeded load of charges on a target and
// records, for every request, when it was due, when it was sent and when it
// completed.
//
// The open model (a constant arrival rate) measures latency from the intended
// send time, not from the actual one: when the target stalls and requests
// queue up (in the client, waiting for a free slot, or in the server), the
// queueing shows in the latencies instead of being silently omitted
// ("coordinated omission"). The closed model (a fixed number of workers back
// to back) is the wrk/pgbench-style alternative, for side-by-side
// comparisons.
//
// A run is bounded in rate, duration and count (see the Max constants); the
// clock is injected, so the scheduler is tested on fake time.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package load

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// Sender sends one request and records the attempt. It must return once ctx
// ends, and should bound the attempt's time itself.
type Sender func(ctx context.Context, r Request) history.Attempt

// Sample is one request the load sent.
type Sample struct {
	Request  Request
	Intended time.Duration // when it was due (closed model: when it was sent)
	Sent     time.Duration // when a worker started sending it
	Done     time.Duration // when the sender returned
	Attempt  history.Attempt
}

// Latency is completion minus intended time: the wait for a free slot
// included.
func (s Sample) Latency() time.Duration { return s.Done - s.Intended }

// Queued is how late the request was sent.
func (s Sample) Queued() time.Duration { return s.Sent - s.Intended }

// Timed returns the attempt with its call time moved to the intended time and
// its return time at completion, so that latency accounting that reads
// Return-Call measures from the intended time.
func (s Sample) Timed() history.Attempt {
	a := s.Attempt
	a.Call, a.Return = s.Intended, s.Done
	return a
}

// Report is what a run did.
type Report struct {
	Model     string
	Start     time.Duration // the clock's reading when the run began; due times count from it
	Scheduled int           // requests offered: due inside the window (closed model: taken by a worker)
	Samples   []Sample      // the requests sent, in index order
	// Missed counts the requests due inside the window that could not be sent
	// before Duration+Grace because every slot stayed busy: a target that
	// cannot keep up. They are counted, never silently dropped.
	Missed int
}

// Elapsed is the time from the start to the last completion.
func (r Report) Elapsed() time.Duration {
	end := r.Start
	for _, s := range r.Samples {
		end = max(end, s.Done)
	}
	return end - r.Start
}

// Answered counts the requests that got an HTTP answer.
func (r Report) Answered() int {
	n := 0
	for _, s := range r.Samples {
		if s.Attempt.Status != 0 {
			n++
		}
	}
	return n
}

// Throughput is the answered requests per second of Elapsed.
func (r Report) Throughput() float64 {
	if e := r.Elapsed(); e > 0 {
		return float64(r.Answered()) / e.Seconds()
	}
	return 0
}

// Run puts the load described by c on send, timed by clock, and returns when
// every request sent has completed. The run starts at the clock's current
// reading: request i is due Intended(i, rate) after it. Every time in the
// report is on the clock's timeline.
func Run(ctx context.Context, c Config, clock Clock, send Sender) (Report, error) {
	if err := c.Validate(); err != nil {
		return Report{}, err
	}
	gen := NewGen(c)
	if c.Model() == Open {
		return runOpen(ctx, c, clock, gen, send), nil
	}
	return runClosed(ctx, c, clock, gen, send), nil
}

// runOpen dispatches request i at its intended time to a free slot.
func runOpen(ctx context.Context, c Config, clock Clock, gen *Gen, send Sender) Report {
	t0 := clock.Now()
	n := c.Scheduled()
	deadline := t0 + c.Duration + c.grace()
	slots := make(chan struct{}, c.inflight())
	samples := make([]Sample, n)
	var wg sync.WaitGroup
	sent := 0
	for i := 0; i < n; i++ {
		due := t0 + Intended(i, c.Rate)
		if !waitUntil(ctx, clock, due) || !acquire(ctx, clock, slots, deadline) {
			break
		}
		r := gen.Next(i)
		sent++
		wg.Add(1)
		go func() {
			defer wg.Done()
			samples[i] = execute(ctx, clock, send, r, due)
			<-slots
		}()
	}
	wg.Wait()
	return Report{Model: Open, Start: t0, Scheduled: n, Samples: samples[:sent], Missed: n - sent}
}

// runClosed runs c.Workers senders back to back until the window or the
// count ends.
func runClosed(ctx context.Context, c Config, clock Clock, gen *Gen, send Sender) Report {
	t0 := clock.Now()
	var mu sync.Mutex
	next := 0
	take := func() (Request, time.Duration, bool) {
		mu.Lock()
		defer mu.Unlock()
		now := clock.Now()
		if next >= c.count() || now >= t0+c.Duration || ctx.Err() != nil {
			return Request{}, 0, false
		}
		next++
		return gen.Next(next - 1), now, true
	}
	per := make([][]Sample, c.Workers)
	var wg sync.WaitGroup
	for w := range per {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r, now, ok := take(); ok; r, now, ok = take() { // bounded by the count and the window
				per[w] = append(per[w], execute(ctx, clock, send, r, now))
			}
		}()
	}
	wg.Wait()
	var samples []Sample
	for _, s := range per {
		samples = append(samples, s...)
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i].Request.Index < samples[j].Request.Index })
	return Report{Model: Closed, Start: t0, Scheduled: len(samples), Samples: samples}
}

// execute sends r, due at due, and times it.
func execute(ctx context.Context, clock Clock, send Sender, r Request, due time.Duration) Sample {
	s := Sample{Request: r, Intended: due, Sent: clock.Now()}
	s.Attempt = send(ctx, r)
	s.Done = clock.Now()
	return s
}

// waitUntil waits until the clock reaches at; false if ctx ended first.
func waitUntil(ctx context.Context, clock Clock, at time.Duration) bool {
	if clock.Now() >= at {
		return ctx.Err() == nil
	}
	if s, ok := clock.(sleeper); ok {
		return s.SleepUntil(ctx, at)
	}
	ch, stop := clock.Timer(at)
	defer stop()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// acquire takes a slot, waiting at most until deadline.
func acquire(ctx context.Context, clock Clock, slots chan struct{}, deadline time.Duration) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	ch, stop := clock.Timer(deadline)
	defer stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-ch:
		return false
	case <-ctx.Done():
		return false
	}
}
