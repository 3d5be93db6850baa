package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// peers records the client address and the headers of every request.
type peers struct {
	mu      sync.Mutex
	remotes []string
	headers []http.Header
	answer  http.HandlerFunc
}

func (p *peers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.remotes = append(p.remotes, r.RemoteAddr)
	p.headers = append(p.headers, r.Header.Clone())
	p.mu.Unlock()
	if p.answer != nil {
		p.answer(w, r)
		return
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(`{"id":"ch_1"}`))
}

func (p *peers) seen() ([]string, []http.Header) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.remotes...), append([]http.Header(nil), p.headers...)
}

func opNumbered(id int) workload.Plan {
	p := oneOp(1)
	p.Ops[0].ID = id
	return p
}

// TestKeepAliveReusesOneConnection: with Reuse, sequential attempts share a
// connection and say so; without it each has its own and asks the server
// to close it.
func TestKeepAliveReusesOneConnection(t *testing.T) {
	for _, reuse := range []bool{true, false} {
		p := &peers{}
		srv := httptest.NewServer(p)
		cl := client.New(client.Config{Routes: routesTo(srv.URL), Reuse: reuse, Policy: fastPolicy()})
		var got []history.Attempt
		for i := range 3 {
			got = append(got, cl.Run(context.Background(), opNumbered(i))...)
		}
		cl.Close()
		srv.Close()
		remotes, headers := p.seen()
		if len(got) != 3 || len(remotes) != 3 {
			t.Fatalf("reuse %v: %d attempts, %d requests; want 3 of each", reuse, len(got), len(remotes))
		}
		for i, a := range got {
			if a.Outcome != history.Acked || a.ChargeID != "ch_1" {
				t.Fatalf("reuse %v: attempt %d: %+v", reuse, i, a)
			}
			if want := reuse && i > 0; a.Reused != want || (remotes[i] == remotes[0]) != (want || i == 0) {
				t.Fatalf("reuse %v: attempt %d reused %v from %s (first %s); want reused %v", reuse, i, a.Reused, remotes[i], remotes[0], want)
			}
			if closing := headers[i].Get("Connection") == "close"; closing == reuse {
				t.Fatalf("reuse %v: attempt %d sent Connection %q", reuse, i, headers[i].Get("Connection"))
			}
		}
	}
}

// TestStaleConnectionIsNotReused: a kept-alive connection the server has
// closed since is not picked for the next attempt.
func TestStaleConnectionIsNotReused(t *testing.T) {
	p := &peers{}
	srv := httptest.NewUnstartedServer(p)
	srv.Config.IdleTimeout = 20 * time.Millisecond
	srv.Start()
	defer srv.Close()
	cl := client.New(client.Config{Routes: routesTo(srv.URL), Reuse: true, Policy: fastPolicy()})
	defer cl.Close()
	first := cl.Run(context.Background(), opNumbered(0))
	time.Sleep(200 * time.Millisecond) // the server closes the idle connection
	second := cl.Run(context.Background(), opNumbered(1))
	if first[0].Outcome != history.Acked || second[0].Outcome != history.Acked || second[0].Reused {
		t.Fatalf("got %+v then %+v; want two acked attempts, the second on a new connection", first[0], second[0])
	}
}

// TestHeaderFieldsAreChecked: a key that would smuggle a header of its own
// is never sent.
func TestHeaderFieldsAreChecked(t *testing.T) {
	p := &peers{}
	srv := httptest.NewServer(p)
	defer srv.Close()
	plan := oneOp(1)
	plan.Ops[0].Key = "k\r\nX-Evil: 1"
	got := client.New(client.Config{Routes: routesTo(srv.URL), Policy: fastPolicy()}).Run(context.Background(), plan)
	remotes, _ := p.seen()
	if len(got) != 1 || got[0].Outcome != history.NotSent || !strings.Contains(got[0].Err, "invalid header field value") || len(remotes) != 0 {
		t.Fatalf("got %+v, server saw %d requests; want one attempt not sent", got, len(remotes))
	}
}

// TestExtraHeadersNeverReplaceTheKey: the Config's headers are sent, but
// not in place of the key or the attempt id.
func TestExtraHeadersNeverReplaceTheKey(t *testing.T) {
	p := &peers{}
	srv := httptest.NewServer(p)
	defer srv.Close()
	extra := func(workload.Op, int) http.Header {
		return http.Header{"X-Control": {"http://127.0.0.1:1/fp"}, "Idempotency-Key": {"other"}, "x-idemchaos-attempt": {"x"}}
	}
	cl := client.New(client.Config{Routes: routesTo(srv.URL), Policy: fastPolicy(), Header: extra})
	cl.Run(context.Background(), oneOp(1))
	_, headers := p.seen()
	if len(headers) != 1 {
		t.Fatalf("server saw %d requests", len(headers))
	}
	h := headers[0]
	if h.Get("X-Control") != "http://127.0.0.1:1/fp" || len(h.Values(api.HeaderKey)) != 1 || h.Get(api.HeaderKey) != "k" ||
		h.Get(api.HeaderAttempt) != client.AttemptID(0, 1) {
		t.Fatalf("server saw headers %v", h)
	}
}

// TestAnswersAsServersWriteThem: a chunked body, an informational answer
// before the final one, and a body past the evidence bound (the
// connection is then not reused, and the next attempt still succeeds).
func TestAnswersAsServersWriteThem(t *testing.T) {
	big := strings.Repeat("x", 40<<10)
	p := &peers{answer: func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get(api.HeaderAttempt) {
		case client.AttemptID(0, 1):
			w.WriteHeader(http.StatusCreated)
			for _, part := range []string{`{"id":`, `"ch_chunked"}`} {
				_, _ = w.Write([]byte(part))
				w.(http.Flusher).Flush()
			}
		case client.AttemptID(1, 1):
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"ch_hinted"}`))
		case client.AttemptID(2, 1):
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(big))
		default:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"ch_after"}`))
		}
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	cl := client.New(client.Config{Routes: routesTo(srv.URL), Reuse: true, Policy: fastPolicy()})
	defer cl.Close()
	var got []history.Attempt
	for i := range 4 {
		got = append(got, cl.Run(context.Background(), opNumbered(i))...)
	}
	switch {
	case got[0].ChargeID != "ch_chunked" || got[0].Status != http.StatusCreated:
		t.Fatalf("chunked answer read as %+v", got[0])
	case got[1].ChargeID != "ch_hinted" || got[1].Status != http.StatusCreated:
		t.Fatalf("answer after 103 read as %+v", got[1])
	case got[2].Status != http.StatusBadRequest || len(got[2].Body) != 16<<10:
		t.Fatalf("big answer read as status %d, %d bytes; want 400 and 16 KiB", got[2].Status, len(got[2].Body))
	case got[3].ChargeID != "ch_after" || got[3].Reused:
		t.Fatalf("attempt after the big answer: %+v; want acked on a new connection", got[3])
	}
}

// TestStopMidAnswer: a run stopped while the server holds its answer ends
// the attempt at once, as aborted.
func TestStopMidAnswer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	defer close(release)
	p := fastPolicy()
	p.PerTry = 10 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	got := client.New(client.Config{Routes: routesTo(srv.URL), Policy: p}).Run(ctx, oneOp(1))
	if took := time.Since(start); took > 2*time.Second || len(got) != 1 || got[0].Outcome != history.Indeterminate || got[0].Err != "run aborted" {
		t.Fatalf("after %s: %+v; want one aborted attempt within 2s", took, got)
	}
}

// TestErrorsNameTheRequest: a connection the server drops without an
// answer reads as net/http's errors do, so the reports and the load
// classes read it as before.
func TestErrorsNameTheRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	}))
	defer srv.Close()
	got := client.New(client.Config{Routes: routesTo(srv.URL), Policy: fastPolicy()}).Run(context.Background(), oneOp(1))
	want := `Post "` + srv.URL + api.PathCharges + `": `
	if len(got) != 1 || got[0].Outcome != history.Indeterminate || !strings.HasPrefix(got[0].Err, want) || load.Class(got[0]) != load.ClassReset {
		t.Fatalf("got %+v; want an indeterminate attempt whose error starts %q, classed reset", got, want)
	}
}

// TestTimedOutTryLeavesTheConnectionOpen: a try the client gave up on
// leaves its connection open, as a network partition would, so a handler
// that stops when its client hangs up (its request's context) runs to its
// end; the connection is closed with the client, and only then does the
// server hear of it.
func TestTimedOutTryLeavesTheConnectionOpen(t *testing.T) {
	hungUp := make(chan struct{})
	p := &peers{answer: func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // as a service decodes it: then the server watches for a hang-up
		select {
		case <-r.Context().Done(): // the handler's work, cancelled by a hang-up
			close(hungUp)
		case <-time.After(10 * time.Second):
		}
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	cl := client.New(client.Config{Routes: routesTo(srv.URL), Policy: client.Policy{PerTry: 50 * time.Millisecond}})
	got := cl.Run(context.Background(), oneOp(1))
	if len(got) != 1 || !got[0].TimedOut() {
		t.Fatalf("got %+v; want one timed-out attempt", got)
	}
	select {
	case <-hungUp:
		t.Fatal("the server heard the client hang up when its try timed out")
	case <-time.After(300 * time.Millisecond):
	}
	cl.Close()
	select {
	case <-hungUp:
	case <-time.After(5 * time.Second):
		t.Fatal("closing the client did not close the connection it had given up on")
	}
}

// TestLateAnswerIsRecorded: the answer that comes on a connection the
// client gave up on is read as it arrives (the server is told nothing)
// and recorded as the attempt's late answer, with when it came; the
// client's own outcome stays the timeout it saw.
func TestLateAnswerIsRecorded(t *testing.T) {
	answered := make(chan time.Duration, 1)
	t0 := time.Now()
	since := func() time.Duration { return time.Since(t0) }
	p := &peers{answer: func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		time.Sleep(200 * time.Millisecond) // the service works on past its client
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"ch_late"}`))
		answered <- since()
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	cl := client.New(client.Config{Routes: routesTo(srv.URL), Since: since, Policy: client.Policy{PerTry: 50 * time.Millisecond}})
	got := cl.Run(context.Background(), oneOp(1))
	if len(got) != 1 || got[0].Outcome != history.Indeterminate || got[0].Status != 0 {
		t.Fatalf("got %+v; want one timed-out attempt", got)
	}
	at := <-answered
	deadline := time.Now().Add(5 * time.Second)
	for got[0].Late == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		cl.FillLate(got)
	}
	cl.Close()
	l := got[0].Late
	if l == nil || l.Status != http.StatusCreated || l.ChargeID != "ch_late" || !l.Replayed || l.At < at || l.At < got[0].Return {
		t.Fatalf("late answer %+v; want 201 ch_late, replayed, at or after %v (the server's write) and after the timeout at %v", l, at, got[0].Return)
	}
	if got[0].Outcome != history.Indeterminate || got[0].Status != 0 {
		t.Errorf("the client's outcome changed: %+v", got[0])
	}
}
