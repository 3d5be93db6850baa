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

// TestRetriesUnknownOutcomesAnd409ButNot422: a try is retried when its
// outcome is unknown or its status says the key is in flight (409, or a
// status of the in-flight set the client is given), never on a refusal.
func TestRetriesUnknownOutcomesAnd409ButNot422(t *testing.T) {
	cases := []struct {
		script   []int
		tries    int
		outcomes []history.Outcome
		inFlight []int
	}{
		{[]int{503, 409}, 5, []history.Outcome{history.Indeterminate, history.Rejected, history.Acked}, nil},
		{[]int{422}, 5, []history.Outcome{history.Rejected}, nil},
		{[]int{425}, 5, []history.Outcome{history.Rejected}, nil},
		{[]int{500, 500, 500}, 2, []history.Outcome{history.Indeterminate, history.Indeterminate}, nil},
		// an in-flight set: each of its statuses is retried, 409 only when in it
		{[]int{425, 409}, 5, []history.Outcome{history.Rejected, history.Rejected, history.Acked}, []int{409, 425}},
		{[]int{409}, 5, []history.Outcome{history.Rejected}, []int{425}},
	}
	for _, c := range cases {
		f := &fakeServer{script: c.script}
		srv := httptest.NewServer(f)
		cl := client.New(client.Config{Routes: routesTo(srv.URL), Policy: fastPolicy(), InFlight: c.inFlight})
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
	arrived, srv := newArrivals()
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
	arrived.start()
	client.New(client.Config{Routes: routesTo(srv.URL)}).Run(ctx, plan)
	if ctx.Err() != nil {
		t.Fatalf("run did not finish within 10s: %v", ctx.Err())
	}
	arrived.mu.Lock()
	defer arrived.mu.Unlock()
	first, lastSeen := time.Duration(1<<62), time.Duration(0)
	for i := 0; i < k; i++ {
		at, ok := arrived.at[client.AttemptID(i, 1)]
		if !ok {
			t.Fatalf("op %d never reached the server; arrivals %v", i, arrived.at)
		}
		first, lastSeen = min(first, at), max(lastSeen, at)
	}
	if first < last {
		t.Errorf("first op of the group reached the server at %v, before the last one reached the barrier (%v); arrivals %v",
			first, last, arrived.at)
	}
	if spread := lastSeen - first; spread > last/2 {
		t.Errorf("group reached the server over %v (%v..%v); want it released at once (spread well under %v); arrivals %v",
			spread, first, lastSeen, last, arrived.at)
	}
	if at, ok := arrived.at[client.AttemptID(loner, 1)]; !ok || at >= last {
		t.Errorf("op %d outside the group reached the server at %v (seen %v); want it not held by the barrier", loner, at, ok)
	}
}

// TestLagSendsAfterTheBarrier: an op's lag starts when its barrier
// releases the group (here once its late member arrives), not when the op
// does: it reaches the server no sooner than the late member's delay plus
// the lag, while the group's other ops go at the release.
func TestLagSendsAfterTheBarrier(t *testing.T) {
	const (
		late = 60 * time.Millisecond // when the group's last op arrives at the barrier
		lag  = 90 * time.Millisecond
	)
	arrived, srv := newArrivals()
	defer srv.Close()
	op := workload.Op{Key: "k", Account: "a", Amount: 1, Currency: "EUR", Group: 0, After: -1, MaxTries: 1}
	first, lagged, slow := op, op, op
	lagged.ID, lagged.Lag = 1, lag
	slow.ID, slow.Delay = 2, late
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	arrived.start()
	client.New(client.Config{Routes: routesTo(srv.URL)}).Run(ctx, workload.Plan{Ops: []workload.Op{first, lagged, slow}})
	alone := op
	alone.Group, alone.ID, alone.Key = -1, 3, "alone"
	alone.Lag = lag
	start := time.Since(arrived.t0)
	client.New(client.Config{Routes: routesTo(srv.URL)}).Run(ctx, workload.Plan{Ops: []workload.Op{alone}})
	arrived.mu.Lock()
	defer arrived.mu.Unlock()
	if at := arrived.at[client.AttemptID(1, 1)]; at < late+lag {
		t.Errorf("the lagged op reached the server at %v; want no sooner than the release (%v) plus its lag (%v); arrivals %v", at, late, lag, arrived.at)
	}
	if at := arrived.at[client.AttemptID(0, 1)]; at < late {
		t.Errorf("op 0 reached the server at %v, before its group was released (%v)", at, late)
	}
	if at := arrived.at[client.AttemptID(3, 1)]; at < start+lag {
		t.Errorf("an op alone reached the server %v after its run started; want its lag (%v) first", at-start, lag)
	}
}

// arrivals records when each attempt reached its server, since start.
type arrivals struct {
	mu sync.Mutex
	t0 time.Time
	at map[string]time.Duration // attempt id -> arrival since t0
}

// newArrivals is a server that answers 201 and records every arrival.
func newArrivals() (*arrivals, *httptest.Server) {
	a := &arrivals{at: map[string]time.Duration{}}
	return a, httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.at[r.Header.Get(api.HeaderAttempt)] = time.Since(a.t0)
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
}

// start sets the time arrivals are counted from.
func (a *arrivals) start() {
	a.mu.Lock()
	a.t0 = time.Now()
	a.mu.Unlock()
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
