package client_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// fakeServer answers with the statuses in script, in order, then 201; it
// records the attempt ids it saw.
type fakeServer struct {
	mu     sync.Mutex
	script []int
	seen   []string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.Header.Get(api.HeaderAttempt))
	status := http.StatusCreated
	if len(f.script) > 0 {
		status, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()
	w.WriteHeader(status)
	if status == http.StatusCreated {
		_, _ = w.Write([]byte(`{"id":"ch_1","account":"a","amount":100,"currency":"EUR","balance":0}`))
	}
}

func routesTo(url string) client.Routes {
	return func(int, string) (string, error) { return url, nil }
}

func oneOp(tries int) workload.Plan {
	return workload.Plan{Ops: []workload.Op{{ID: 0, Key: "k", Account: "a", Amount: 100, Currency: "EUR",
		Group: -1, After: -1, MaxTries: tries}}}
}

func fastPolicy() client.Policy {
	return client.Policy{PerTry: time.Second, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

func TestRetriesUnknownOutcomesAnd409ButNot422(t *testing.T) {
	cases := []struct {
		script   []int
		tries    int
		outcomes []history.Outcome
	}{
		{[]int{503, 409}, 5, []history.Outcome{history.Indeterminate, history.Rejected, history.Acked}},
		{[]int{422}, 5, []history.Outcome{history.Rejected}},
		{[]int{500, 500, 500}, 2, []history.Outcome{history.Indeterminate, history.Indeterminate}},
	}
	for _, c := range cases {
		f := &fakeServer{script: c.script}
		srv := httptest.NewServer(f)
		cl := client.New(client.Config{Routes: routesTo(srv.URL), Policy: fastPolicy()})
		got := cl.Run(context.Background(), oneOp(c.tries))
		srv.Close()
		if len(got) != len(c.outcomes) {
			t.Fatalf("script %v: %d attempts; want %d", c.script, len(got), len(c.outcomes))
		}
		for i, a := range got {
			if a.Outcome != c.outcomes[i] || a.Try != i+1 || a.ID != client.AttemptID(0, i+1) {
				t.Errorf("script %v attempt %d: %+v; want outcome %s try %d", c.script, i, a, c.outcomes[i], i+1)
			}
		}
	}
}

func TestAckedAttemptCarriesChargeAndFingerprint(t *testing.T) {
	srv := httptest.NewServer(&fakeServer{})
	defer srv.Close()
	got := client.New(client.Config{Routes: routesTo(srv.URL)}).Run(context.Background(), oneOp(1))
	want := api.ChargeRequest{Account: "a", Amount: 100, Currency: "EUR"}.Fingerprint()
	if len(got) != 1 || got[0].ChargeID != "ch_1" || got[0].Fingerprint != want || got[0].Return < got[0].Call {
		t.Fatalf("got %+v", got)
	}
}

func TestDialRefusedIsNotSent(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	got := client.New(client.Config{Routes: routesTo("http://" + addr), Policy: fastPolicy()}).Run(context.Background(), oneOp(2))
	if len(got) != 2 || got[0].Outcome != history.NotSent {
		t.Fatalf("got %+v; want 2 not-sent attempts", got)
	}
}

func TestPerTryTimeoutIsIndeterminate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer srv.Close()
	p := fastPolicy()
	p.PerTry = 50 * time.Millisecond
	got := client.New(client.Config{Routes: routesTo(srv.URL), Policy: p}).Run(context.Background(), oneOp(1))
	if len(got) != 1 || got[0].Outcome != history.Indeterminate {
		t.Fatalf("got %+v; want one indeterminate attempt", got)
	}
}

// TestBarrierReleasesGroupTogether: no op of a group is sent before every op
// of the group has arrived at the barrier, and then all are sent at once.
// The group's ops reach the barrier at staggered times (op i after i*stagger),
// so without the barrier their requests would reach the server spread over
// (k-1)*stagger; an op outside the group is not held.
func TestBarrierReleasesGroupTogether(t *testing.T) {
	const (
		k       = 8
		stagger = 75 * time.Millisecond
		last    = (k - 1) * stagger // when the last op of the group arrives
		loner   = k                 // id of the op outside the group
	)
	var mu sync.Mutex
	arrived := map[string]time.Duration{} // attempt id -> arrival since t0
	var t0 time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived[r.Header.Get(api.HeaderAttempt)] = time.Since(t0)
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	var plan workload.Plan
	for i := 0; i < k; i++ {
		plan.Ops = append(plan.Ops, workload.Op{ID: i, Key: "k", Account: "a", Amount: 1, Currency: "EUR",
			Group: 0, After: -1, MaxTries: 1, Delay: time.Duration(i) * stagger})
	}
	plan.Ops = append(plan.Ops, workload.Op{ID: loner, Key: "other", Account: "a", Amount: 1, Currency: "EUR",
		Group: -1, After: -1, MaxTries: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t0 = time.Now()
	client.New(client.Config{Routes: routesTo(srv.URL)}).Run(ctx, plan)
	if ctx.Err() != nil {
		t.Fatalf("run did not finish within 10s: %v", ctx.Err())
	}
	mu.Lock()
	defer mu.Unlock()
	first, lastSeen := time.Duration(1<<62), time.Duration(0)
	for i := 0; i < k; i++ {
		at, ok := arrived[client.AttemptID(i, 1)]
		if !ok {
			t.Fatalf("op %d never reached the server; arrivals %v", i, arrived)
		}
		first, lastSeen = min(first, at), max(lastSeen, at)
	}
	if first < last {
		t.Errorf("first op of the group reached the server at %v, before the last one reached the barrier (%v); arrivals %v",
			first, last, arrived)
	}
	if spread := lastSeen - first; spread > last/2 {
		t.Errorf("group reached the server over %v (%v..%v); want it released at once (spread well under %v); arrivals %v",
			spread, first, lastSeen, last, arrived)
	}
	if at, ok := arrived[client.AttemptID(loner, 1)]; !ok || at >= last {
		t.Errorf("op %d outside the group reached the server at %v (seen %v); want it not held by the barrier", loner, at, ok)
	}
}

func TestAfterOrdersOps(t *testing.T) {
	f := &fakeServer{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	plan := oneOp(1)
	second := plan.Ops[0]
	second.ID, second.After = 1, 0
	plan.Ops = append(plan.Ops, second)
	got := client.New(client.Config{Routes: routesTo(srv.URL)}).Run(context.Background(), plan)
	if len(got) != 2 || got[1].Op != 1 || got[1].Call < got[0].Return {
		t.Fatalf("got %+v; want op 1 sent after op 0 returned", got)
	}
}

func TestRunStopsWhenContextEnds(t *testing.T) {
	srv := httptest.NewServer(&fakeServer{script: []int{503, 503, 503, 503, 503, 503, 503, 503}})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	p := client.Policy{Backoff: 20 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	start := time.Now()
	client.New(client.Config{Routes: routesTo(srv.URL), Policy: p}).Run(ctx, oneOp(20))
	if took := time.Since(start); took > time.Second {
		t.Fatalf("run took %s after its context ended", took)
	}
}
