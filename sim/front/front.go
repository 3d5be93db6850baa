// Package front is the server side of client mode, where idemchaos serves
// the payment API and the code under test is the client: an http.Handler
// in front of the API that reads each charge request in the API's shape,
// finds the operation it belongs to by the account it names, does to it
// what the client plan says for that try of that operation (reset the
// connection after the commit or before the request is handled, hold the
// commit while the client retries, answer 503 or 429 with Retry-After,
// answer after the client's timeout) and records every request as the
// server received it.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package front

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// maxBody bounds a request body the front reads.
const maxBody = 64 << 10

// maxRecorded bounds the requests recorded: a client that hammers is
// shown by its first ones, and the rest are only counted.
const maxRecorded = 20_000

// Config wires a front.
type Config struct {
	Plan  workload.ClientPlan
	Shape api.Shape
	// Next serves the payment API in Shape (server.Shaped). The front sets
	// api.HeaderAttempt on each request it passes on.
	Next http.Handler
	// Hold holds the commit of the attempt with that id for d (the
	// InFlight fault): the caller arms it on the strategy's failpoints.
	// The channel it returns is closed once the hold begins: the key is
	// claimed, and a retry of it now meets it in flight.
	Hold func(attemptID string, d time.Duration) (held <-chan struct{})
	// Since is the time since the run's start.
	Since func() time.Duration
}

// Front is the handler; Received is what it recorded.
type Front struct {
	cfg      Config
	mu       sync.Mutex
	seq      int
	tries    map[string]int
	received []history.Received
	closed   map[string]time.Duration // by the client's end: when each connection closed
	dropped  int                      // requests past maxRecorded
	// running counts the charge requests not yet recorded (InFlight's run
	// on after the reset); drained, when Wait made it, is closed as it
	// falls to 0. A request may begin while Wait waits (a sync.WaitGroup
	// would panic: Add from 0 concurrent with Wait).
	running int
	drained chan struct{}
}

// New returns a front as cfg says.
func New(cfg Config) *Front {
	return &Front{cfg: cfg, tries: map[string]int{}, closed: map[string]time.Duration{}}
}

// ServeHTTP handles one request: a charge as the plan says, anything else
// passed on.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != f.cfg.Shape.Path {
		f.cfg.Next.ServeHTTP(w, r)
		return
	}
	f.begin()
	defer f.end() // once recorded: a reset answer is seen by the client before that
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	rec := f.admit(r, body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.Header.Set(api.HeaderAttempt, rec.ID)
	f.apply(w, r, &rec)
	rec.Answered = f.cfg.Since()
	f.record(rec)
}

// admit numbers a request and finds its operation and the fault it meets.
func (f *Front) admit(r *http.Request, body []byte) history.Received {
	rec := history.Received{Arrived: f.cfg.Since(), Key: r.Header.Get(api.HeaderKey), Conn: r.RemoteAddr}
	req, canonical, err := f.cfg.Shape.Decode(r.Header.Get("Content-Type"), body)
	rec.Body = canonical
	if err != nil {
		rec.Invalid = err.Error()
	}
	rec.Op = f.cfg.Plan.OpOf(req.Account)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	rec.ID = "c" + strconv.Itoa(f.seq)
	if rec.Op != "" {
		f.tries[rec.Op]++
		rec.Try = f.tries[rec.Op]
		rec.Fault = string(f.cfg.Plan.FaultAt(rec.Op, rec.Try))
	}
	return rec
}

// apply serves r as its fault says, filling what the client got.
func (f *Front) apply(w http.ResponseWriter, r *http.Request, rec *history.Received) {
	switch workload.FrontFault(rec.Fault) {
	case workload.DropAfterCommit:
		rec.Charge = chargeOf(f.serve(r))
		reset(w)
	case workload.ResetBeforeRead:
		reset(w)
	case workload.InFlight:
		f.inFlight(r, rec.ID)
		reset(w)
	case workload.Unavailable, workload.RateLimited:
		rec.Status, rec.RetryAfter = f.refuse(w, workload.FrontFault(rec.Fault))
	case workload.SlowAnswer:
		got := f.serve(r)
		rec.Charge = chargeOf(got)
		if f.late(r.Context()) {
			rec.Status = relay(w, got)
		}
	default:
		got := f.serve(r)
		rec.Charge, rec.Status = chargeOf(got), relay(w, got)
	}
}

// claimWait bounds how long an in-flight request's connection stays open
// waiting for its commit to be held.
const claimWait = 5 * time.Second

// inFlight starts the request on its own, its commit held, and returns
// once the hold has begun (or the request ended without reaching its
// commit): the connection is reset only then, so the client's retry,
// however quick (a transport's own re-send comes within a millisecond),
// meets the key in flight instead of racing the original for it.
func (f *Front) inFlight(r *http.Request, id string) {
	held := f.cfg.Hold(id, f.cfg.Plan.Hold)
	detached := r.Clone(context.WithoutCancel(r.Context()))
	done := make(chan struct{})
	f.begin()
	go func() {
		defer f.end()
		defer close(done)
		f.serve(detached)
	}()
	t := time.NewTimer(claimWait)
	defer t.Stop()
	select {
	case <-held:
	case <-done:
	case <-t.C:
	}
}

// serve runs the request through the API and keeps its answer.
func (f *Front) serve(r *http.Request) *httptest.ResponseRecorder {
	got := httptest.NewRecorder()
	f.cfg.Next.ServeHTTP(got, r)
	return got
}

// late waits the plan's Slow, or until the client hung up (false).
func (f *Front) late(ctx context.Context) bool {
	t := time.NewTimer(f.cfg.Plan.Slow)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// refuse answers 503 or 429 in the shape's error form, with the plan's
// Retry-After unless the shape's API sends none (then retryAfter is 0).
func (f *Front) refuse(w http.ResponseWriter, fault workload.FrontFault) (status, retryAfter int) {
	status, code, msg := http.StatusServiceUnavailable, "unavailable", "the service is unavailable; retry later"
	if fault == workload.RateLimited {
		status, code, msg = http.StatusTooManyRequests, "rate_limited", "too many requests; retry later"
	}
	b, _ := jsonError(code, msg) // two strings cannot fail to encode
	status, b = f.cfg.Shape.Answer(status, b)
	w.Header().Set("Content-Type", "application/json")
	if !f.cfg.Shape.NoRetryAfter {
		retryAfter = f.cfg.Plan.RetryAfter
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	_, _ = w.Write(b)
	return status, retryAfter
}

func (f *Front) record(rec history.Received) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.received) >= maxRecorded {
		f.dropped++
		return
	}
	f.received = append(f.received, rec)
}

// Wait waits until every charge request is recorded, those still running
// after their connection was reset included (a client that saw the reset
// may be done before its request is recorded; InFlight's runs on), or
// ctx.
func (f *Front) Wait(ctx context.Context) error {
	f.mu.Lock()
	if f.running == 0 {
		f.mu.Unlock()
		return nil
	}
	if f.drained == nil {
		f.drained = make(chan struct{})
	}
	drained := f.drained
	f.mu.Unlock()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// begin counts a request running; end, once it is recorded, uncounts it.
func (f *Front) begin() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running++
}

func (f *Front) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running--; f.running == 0 && f.drained != nil {
		close(f.drained)
		f.drained = nil
	}
}

// Received returns the requests recorded so far, by arrival, and how many
// more came past the bound.
func (f *Front) Received() ([]history.Received, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]history.Received(nil), f.received...)
	for i := range out {
		out[i].ConnClosed = f.closed[out[i].Conn]
	}
	slices.SortStableFunc(out, func(a, b history.Received) int { return cmp.Compare(a.Arrived, b.Arrived) })
	return out, f.dropped
}

// ConnState is the server's http.Server.ConnState: it notes when each
// client connection closed (or was taken over to be reset), so the
// checker knows whether a client could have read an answer before it
// retried.
func (f *Front) ConnState(c net.Conn, state http.ConnState) {
	if state != http.StateClosed && state != http.StateHijacked {
		return
	}
	at := f.cfg.Since()
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, seen := f.closed[c.RemoteAddr().String()]; !seen && len(f.closed) < maxRecorded {
		f.closed[c.RemoteAddr().String()] = at
	}
}
