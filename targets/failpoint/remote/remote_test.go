package remote

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// harness is the harness side of a test: a Set with a recorder at every
// point, served by a Server.
type harness struct {
	set *failpoint.Set
	srv *Server
	mu  sync.Mutex
	log []failpoint.Hit
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{set: &failpoint.Set{}}
	for _, p := range api.Points() {
		h.set.Arm("trace", p, failpoint.Any, func(_ context.Context, hit failpoint.Hit) func() {
			h.mu.Lock()
			h.log = append(h.log, hit)
			h.mu.Unlock()
			return nil
		})
	}
	srv, err := Listen(h.set)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	t.Cleanup(func() { _ = srv.Close() })
	return h
}

func (h *harness) hits() []failpoint.Hit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]failpoint.Hit(nil), h.log...)
}

// service is a service speaking the protocol: behind the middleware, its
// handler passes the given points, through At or through a Set's Eval.
func service(t *testing.T, c *Client, viaSet bool, points ...api.Point) *httptest.Server {
	t.Helper()
	set := NewSet()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(api.HeaderKey)
		for _, p := range points {
			if viaSet {
				set.Eval(r.Context(), p, key, r.Header.Get(api.HeaderAttempt), 0)
			} else {
				At(r.Context(), p, key)
			}
		}
		w.WriteHeader(http.StatusCreated)
	})
	s := httptest.NewServer(c.Middleware(h))
	t.Cleanup(s.Close)
	return s
}

// send posts to the service with the given control URL ("" : none).
func send(t *testing.T, svc *httptest.Server, control, key, attempt string) time.Duration {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, svc.URL, strings.NewReader("{}"))
	req.Header.Set(api.HeaderKey, key)
	req.Header.Set(api.HeaderAttempt, attempt)
	if control != "" {
		req.Header.Set(Header, control)
	}
	start := time.Now()
	resp, err := svc.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("service answered %d", resp.StatusCode)
	}
	return time.Since(start)
}

type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logs) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func TestEveryPointReachesTheHarness(t *testing.T) {
	for _, viaSet := range []bool{false, true} {
		t.Run(fmt.Sprintf("viaSet=%v", viaSet), func(t *testing.T) {
			h := newHarness(t)
			var l logs
			svc := service(t, &Client{Logf: l.logf}, viaSet, api.Points()...)
			send(t, svc, h.srv.URL(2), "k1", "o1-t1")
			hits := h.hits()
			if len(hits) != len(api.Points()) {
				t.Fatalf("harness saw %d hits, want %d: %+v", len(hits), len(api.Points()), hits)
			}
			for i, p := range api.Points() {
				want := failpoint.Hit{Point: p, Key: "k1", AttemptID: "o1-t1", Replica: 2}
				if hits[i] != want {
					t.Errorf("hit %d = %+v, want %+v", i, hits[i], want)
				}
			}
			if got := l.all(); len(got) != 0 {
				t.Errorf("logged %q on a run that worked", got)
			}
		})
	}
}

func TestRequestWithoutHeaderPaysNothing(t *testing.T) {
	h := newHarness(t)
	var l logs
	svc := service(t, &Client{Logf: l.logf}, true, api.Points()...)
	send(t, svc, "", "k1", "o1-t1")
	if n := len(h.hits()); n != 0 {
		t.Errorf("a request without the header reached the harness %d times", n)
	}
	At(context.Background(), api.AfterCheck, "k") // no middleware: nothing to call
	End(context.Background())
	if got := l.all(); len(got) != 0 {
		t.Errorf("logged %q", got)
	}
	allocs := testing.AllocsPerRun(100, func() { At(context.Background(), api.AfterCheck, "k") })
	if allocs != 0 {
		t.Errorf("At without a control URL allocates %v times", allocs)
	}
}

// TestDelayHeldAndEndHeals: the harness holds the answer at the point for a
// delay, and a fault fired there heals when the service's work is over,
// before its client gets the answer.
func TestDelayHeldAndEndHeals(t *testing.T) {
	h := newHarness(t)
	var healed atomic.Bool
	h.set.Arm("inject", api.BeforeCommit, failpoint.Attempt("o1-t1"), func(ctx context.Context, _ failpoint.Hit) func() {
		select {
		case <-time.After(150 * time.Millisecond):
		case <-ctx.Done():
		}
		return func() { healed.Store(true) }
	})
	svc := service(t, &Client{}, false, api.AfterCheck, api.BeforeCommit, api.AfterCommit)
	took := send(t, svc, h.srv.URL(0), "k", "o1-t1")
	if took < 150*time.Millisecond {
		t.Errorf("request took %v: the delay was not held", took)
	}
	if !healed.Load() {
		t.Errorf("the fault had not healed when the client got its answer")
	}
	if f := h.set.Fired()["inject"]; f != 1 {
		t.Errorf("inject fired %d times, want 1", f)
	}
	if took := send(t, svc, h.srv.URL(0), "k", "o2-t1"); took > 100*time.Millisecond {
		t.Errorf("another attempt took %v: the delay is for o1-t1 only", took)
	}
}

// TestGateForcesTheInterleaving: the gate of forced-race, over the wire:
// the first request of a key is held at after-check until the second one
// has committed.
func TestGateForcesTheInterleaving(t *testing.T) {
	h := newHarness(t)
	g := &failpoint.Gate{Hold: api.AfterCheck, Until: api.AfterCommit, Timeout: 3 * time.Second}
	g.Arm(h.set)
	svc := service(t, &Client{}, true, api.AfterCheck, api.AfterCommit)
	first := make(chan time.Duration)
	go func() { first <- send(t, svc, h.srv.URL(0), "k", "a") }()
	deadline := time.Now().Add(2 * time.Second)
	for engaged, _ := g.Stats(); engaged == 0; engaged, _ = g.Stats() {
		if time.Now().After(deadline) {
			t.Fatal("the gate never held the first request")
		}
		time.Sleep(5 * time.Millisecond)
	}
	send(t, svc, h.srv.URL(0), "k", "b")
	if took := <-first; took > 2*time.Second {
		t.Errorf("first request took %v: the second did not open the gate", took)
	}
	if engaged, opened := g.Stats(); engaged != 1 || opened != 1 {
		t.Errorf("gate engaged %d, opened %d; want 1, 1", engaged, opened)
	}
	var order []string
	for _, hit := range h.hits() {
		order = append(order, hit.AttemptID+"@"+string(hit.Point))
	}
	if want := "a@after-check b@after-check b@after-commit a@after-commit"; strings.Join(order, " ") != want {
		t.Errorf("order %q, want %q", strings.Join(order, " "), want)
	}
}

// TestServiceTimeoutGoesOn: an answer held longer than the service's
// timeout is given up; the request goes on, makes no more calls, and the
// service says so once.
func TestServiceTimeoutGoesOn(t *testing.T) {
	h := newHarness(t)
	h.set.Arm("inject", api.AfterCheck, failpoint.Any, func(ctx context.Context, _ failpoint.Hit) func() {
		select {
		case <-time.After(3 * time.Second):
		case <-ctx.Done():
		}
		return nil
	})
	var l logs
	svc := service(t, &Client{Timeout: 100 * time.Millisecond, Logf: l.logf}, false, api.AfterCheck, api.AfterCommit)
	for _, a := range []string{"a", "b"} {
		if took := send(t, svc, h.srv.URL(0), "k-"+a, a); took > time.Second {
			t.Errorf("request %s took %v with a 100ms timeout", a, took)
		}
	}
	for _, hit := range h.hits() {
		if hit.Point != api.AfterCheck {
			t.Errorf("a call after a timed-out one: %+v", hit)
		}
	}
	if got := l.all(); len(got) != 1 || !strings.Contains(got[0], "said once") {
		t.Errorf("logged %q; want one line", got)
	}
}

// TestHarnessBoundsItsHold: the harness answers within MaxHold whatever the
// action does.
func TestHarnessBoundsItsHold(t *testing.T) {
	h := newHarness(t)
	h.srv.MaxHold = 100 * time.Millisecond
	h.set.Arm("inject", api.AfterCheck, failpoint.Any, func(ctx context.Context, _ failpoint.Hit) func() {
		select {
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
		}
		return nil
	})
	svc := service(t, &Client{}, false, api.AfterCheck)
	if took := send(t, svc, h.srv.URL(0), "k", "a"); took > 2*time.Second {
		t.Errorf("held %v past a MaxHold of 100ms", took)
	}
}

func TestUnreachableHarness(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + pathPrefix + "0"
	ln.Close()
	var l logs
	svc := service(t, &Client{Logf: l.logf}, true, api.Points()...)
	for _, a := range []string{"a", "b", "c"} {
		if took := send(t, svc, dead, "k", a); took > 2*time.Second {
			t.Errorf("request %s took %v against an unreachable harness", a, took)
		}
	}
	got := l.all()
	if len(got) != 1 || !strings.Contains(got[0], "unreachable") {
		t.Errorf("logged %q; want one line saying the harness is unreachable", got)
	}
}

func TestControlURLOffLoopbackIgnored(t *testing.T) {
	var l logs
	svc := service(t, &Client{Logf: l.logf}, false, api.AfterCheck)
	for _, u := range []string{"http://10.1.2.3:80/x", "https://127.0.0.1:1/x", "http://user:pw@127.0.0.1:1/x", "not a url"} {
		if took := send(t, svc, u, "k", "a"); took > time.Second {
			t.Errorf("%s: request took %v", u, took)
		}
	}
	got := l.all()
	if len(got) != 1 || !strings.Contains(got[0], "ignoring") || strings.Contains(got[0], "pw") {
		t.Errorf("logged %q; want one line ignoring the header, no password", got)
	}
}

func TestServerRefusesWhatIsNotACall(t *testing.T) {
	h := newHarness(t)
	base := strings.TrimSuffix(h.srv.URL(0), "0")
	cases := []struct {
		method, url, body string
		status            int
	}{
		{http.MethodPost, base + "0", `{"point":"after-check","key":"k","attempt":"a"}`, http.StatusNoContent},
		{http.MethodPost, base + "0", `{"point":"end","attempt":"a"}`, http.StatusNoContent},
		{http.MethodPost, base + "0", `{"point":"after-lunch"}`, http.StatusBadRequest},
		{http.MethodPost, base + "0", `not json`, http.StatusBadRequest},
		{http.MethodPost, base + "0", `{"point":"after-check","key":"` + strings.Repeat("k", maxCallBody) + `"}`, http.StatusBadRequest},
		{http.MethodGet, base + "0", ``, http.StatusMethodNotAllowed},
		{http.MethodPost, base + "x", `{"point":"after-check"}`, http.StatusNotFound},
		{http.MethodPost, base + "01", `{"point":"after-check"}`, http.StatusNotFound},
		{http.MethodPost, base + "-1", `{"point":"after-check"}`, http.StatusNotFound},
		{http.MethodPost, strings.TrimSuffix(base, "/r") + "/other", `{"point":"after-check"}`, http.StatusNotFound},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s %.40s: %d, want %d", c.method, c.url, c.body, resp.StatusCode, c.status)
		}
	}
	if n := len(h.hits()); n != 1 {
		t.Errorf("%d hits evaluated, want the one valid call", n)
	}
}

// TestRequestsThatNeverEndAreEnded: a fault fired by a request whose "end"
// never comes heals EndAfter later, and on Close at the latest; Close also
// cuts a call still held.
func TestRequestsThatNeverEndAreEnded(t *testing.T) {
	set := &failpoint.Set{}
	var healed atomic.Int32
	set.Arm("inject", api.AfterCommit, failpoint.Any, func(context.Context, failpoint.Hit) func() {
		return func() { healed.Add(1) }
	})
	set.Arm("hold", api.BeforeCommit, failpoint.Any, func(ctx context.Context, _ failpoint.Hit) func() {
		<-ctx.Done()
		return nil
	})
	srv, err := Listen(set)
	if err != nil {
		t.Fatal(err)
	}
	srv.EndAfter = 100 * time.Millisecond
	c := &Client{Logf: func(string, ...any) {}}
	c.post(context.Background(), srv.URL(0), Call{Point: string(api.AfterCommit), Attempt: "a"})
	deadline := time.Now().Add(2 * time.Second)
	for healed.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if healed.Load() != 1 {
		t.Fatalf("a request that never ended was not ended after EndAfter")
	}
	srv.EndAfter = time.Hour
	c.post(context.Background(), srv.URL(0), Call{Point: string(api.AfterCommit), Attempt: "b"})
	held := make(chan time.Duration)
	go func() {
		start := time.Now()
		c.post(context.Background(), srv.URL(0), Call{Point: string(api.BeforeCommit), Attempt: "c"})
		held <- time.Since(start)
	}()
	time.Sleep(100 * time.Millisecond)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if took := <-held; took > 3*time.Second {
		t.Errorf("Close left a held call waiting %v", took)
	}
	if healed.Load() != 2 {
		t.Errorf("Close did not end the open request: %d heals", healed.Load())
	}
}
