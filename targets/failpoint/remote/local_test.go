package remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// handlerMark is a value the service's handler puts in its request's
// context: a point evaluated with it was evaluated in the handler's own
// call, in process; one evaluated from the wire has the control request's
// context, without it.
type handlerMark struct{}

// marked is a service whose handler marks its context, then passes points.
func marked(t *testing.T, c *Client, points ...api.Point) *httptest.Server {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), handlerMark{}, true)
		for _, p := range points {
			At(ctx, p, r.Header.Get(api.HeaderKey))
		}
		w.WriteHeader(http.StatusCreated)
	})
	s := httptest.NewServer(c.Middleware(h))
	t.Cleanup(s.Close)
	return s
}

// inProcessHits arms, at every point of h, a recorder of whether the hit
// was evaluated in the handler's call.
func inProcessHits(h *harness) *[]bool {
	var in []bool
	for _, p := range api.Points() {
		h.set.Arm("in-process", p, failpoint.Any, func(ctx context.Context, _ failpoint.Hit) func() {
			h.mu.Lock()
			in = append(in, ctx.Value(handlerMark{}) != nil)
			h.mu.Unlock()
			return nil
		})
	}
	return &in
}

// TestInProcessCallsSkipTheWire: a Client with InProcess evaluates the
// points of a request whose control URL a Server of this process serves on
// that Server, in the handler's own call, with the same hits (key,
// attempt, replica) and its end; one whose URL no Server of the process
// serves goes on the wire.
func TestInProcessCallsSkipTheWire(t *testing.T) {
	h := newHarness(t)
	in := inProcessHits(h)
	var healed int
	h.set.Arm("inject", api.AfterCommit, failpoint.Any, func(context.Context, failpoint.Hit) func() {
		return func() { healed++ }
	})
	svc := marked(t, &Client{InProcess: true}, api.Points()...)
	send(t, svc, h.srv.URL(3), "k1", "o1-t1")
	hits := h.hits()
	if len(hits) != len(api.Points()) {
		t.Fatalf("harness saw %d hits, want %d: %+v", len(hits), len(api.Points()), hits)
	}
	for i, p := range api.Points() {
		if want := (failpoint.Hit{Point: p, Key: "k1", AttemptID: "o1-t1", Replica: 3}); hits[i] != want {
			t.Errorf("hit %d = %+v, want %+v", i, hits[i], want)
		}
		if !(*in)[i] {
			t.Errorf("hit %d was evaluated off the handler's call: on the wire", i)
		}
	}
	if healed != 1 {
		t.Errorf("%d heals after the request: its end was not carried out", healed)
	}
	wire := httptest.NewServer(h.srv) // the same Server, at an address no Listen registered
	t.Cleanup(wire.Close)
	send(t, svc, wire.URL+pathPrefix+"0", "k2", "o2-t1")
	for i, inProc := range (*in)[len(api.Points()):] {
		if inProc {
			t.Errorf("hit %d of a control URL no Server of this process serves was evaluated in process", i)
		}
	}
}

// TestCloseEndsAnInProcessHold: a point held in process ends when the
// Server closes, as a held call's connection does, not at MaxHold.
func TestCloseEndsAnInProcessHold(t *testing.T) {
	set := &failpoint.Set{}
	ended := make(chan error, 1)
	held := make(chan struct{})
	set.Arm("hold", api.AfterCheck, failpoint.Any, func(ctx context.Context, _ failpoint.Hit) func() {
		close(held)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil
	})
	srv, err := Listen(set)
	if err != nil {
		t.Fatal(err)
	}
	svc := marked(t, &Client{InProcess: true}, api.AfterCheck)
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		send(t, svc, srv.URL(0), "k", "a")
	}()
	<-held
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the hold ended with %v, want canceled by Close", err)
	}
	<-answered
}
