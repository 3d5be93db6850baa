package front_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/front"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// fakeAPI is a payment API that charges every request it is handed.
type fakeAPI struct {
	mu     sync.Mutex
	served map[string]int // by account
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, _, err := api.JSONShape.Decode(r.Header.Get("Content-Type"), mustRead(r))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.served[req.Account]++
	n := f.served[req.Account]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":"ch_%s_%d"}`, req.Account, n)
}

func (f *fakeAPI) count(account string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.served[account]
}

func mustRead(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

func TestEachFaultDoesWhatItSays(t *testing.T) {
	plan := workload.ClientPlan{Timeout: 200 * time.Millisecond, Slow: 600 * time.Millisecond, Hold: 50 * time.Millisecond, RetryAfter: 2}
	for i, f := range workload.FrontFaults {
		plan.Ops = append(plan.Ops, workload.ClientOp{ID: fmt.Sprintf("op-%d", i), Account: fmt.Sprintf("acct-%d", i),
			Amount: 100, Currency: "usd", Faults: []workload.FrontFault{f}})
	}
	fake := &fakeAPI{served: map[string]int{}}
	var held []string
	var heldMu sync.Mutex
	t0 := time.Now()
	fr := front.New(front.Config{Plan: plan, Shape: api.JSONShape, Next: fake, Since: func() time.Duration { return time.Since(t0) },
		Hold: func(id string, d time.Duration) <-chan struct{} {
			heldMu.Lock()
			held = append(held, fmt.Sprintf("%s %s", id, d))
			heldMu.Unlock()
			return nil // never held: the front waits for the request to end
		}})
	srv := httptest.NewServer(fr)
	defer srv.Close()
	cl := &http.Client{Timeout: plan.Timeout}
	post := func(i int) (*http.Response, error) {
		body := fmt.Sprintf(`{"account":"acct-%d","amount":100,"currency":"usd"}`, i)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+api.PathCharges, strings.NewReader(body))
		req.Header.Set(api.HeaderKey, fmt.Sprintf("key-%d", i))
		return cl.Do(req)
	}
	want := map[workload.FrontFault]struct {
		status  int  // what the client gets; 0: an error
		charged bool // the API was handed the request
	}{
		workload.DropAfterCommit: {0, true}, workload.ResetBeforeRead: {0, false}, workload.InFlight: {0, true},
		workload.Unavailable: {503, false}, workload.RateLimited: {429, false}, workload.SlowAnswer: {0, true},
	}
	for i, f := range workload.FrontFaults {
		res, err := post(i)
		got := 0
		if err == nil {
			got = res.StatusCode
			if ra := res.Header.Get("Retry-After"); got >= 429 && ra != "2" {
				t.Errorf("%s: Retry-After %q, want 2", f, ra)
			}
			res.Body.Close()
		}
		if got != want[f].status {
			t.Errorf("%s: the client got %d (%v), want %d", f, got, err, want[f].status)
		}
		if err := fr.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		if charged := fake.count(fmt.Sprintf("acct-%d", i)) > 0; charged != want[f].charged {
			t.Errorf("%s: the API was handed the request: %v, want %v", f, charged, want[f].charged)
		}
		res, err = post(i) // the second try meets no fault
		if err != nil || res.StatusCode != http.StatusCreated {
			t.Fatalf("%s: the second try: %v %v", f, res, err)
		}
		res.Body.Close()
	}
	time.Sleep(plan.Slow) // the slow answer's handler gives up on its gone client
	received, beyond := fr.Received()
	if len(received) != 2*len(workload.FrontFaults) || beyond != 0 {
		t.Fatalf("received %d (+%d beyond), want %d", len(received), beyond, 2*len(workload.FrontFaults))
	}
	for _, r := range received {
		if r.Op == "" || r.Key == "" || (r.Try == 1) != (r.Fault != "") {
			t.Errorf("recorded %+v: want its operation, key, try and the first try's fault", r)
		}
	}
	if len(held) != 1 || !strings.HasSuffix(held[0], " 50ms") {
		t.Errorf("held %v: want the in-flight request's commit held once for the plan's 50ms", held)
	}
}

func TestUnknownAccountsAndOtherPathsPassThrough(t *testing.T) {
	fake := &fakeAPI{served: map[string]int{}}
	plan := workload.ClientPlan{Ops: []workload.ClientOp{{ID: "op-1", Account: "acct-1", Faults: []workload.FrontFault{workload.ResetBeforeRead}}}}
	fr := front.New(front.Config{Plan: plan, Shape: api.JSONShape, Next: fake, Since: func() time.Duration { return 0 }})
	srv := httptest.NewServer(fr)
	defer srv.Close()
	res, err := http.Post(srv.URL+api.PathCharges, "application/json", strings.NewReader(`{"account":"other","amount":1,"currency":"usd"}`))
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("a charge on an account of no operation: %v %v, want it served", res, err)
	}
	res.Body.Close()
	got, _ := fr.Received()
	if len(got) != 1 || got[0].Op != "" || got[0].Fault != "" {
		t.Fatalf("recorded %+v: want it recorded under no operation, with no fault", got)
	}
}

// claimingAPI is a payment API that takes a while to claim a request's
// key, then says its commit is held (as the strategy's failpoint does).
type claimingAPI struct {
	claim time.Duration
	held  chan struct{}
	mu    sync.Mutex
	at    time.Time // when the hold began
}

func (c *claimingAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	time.Sleep(c.claim)
	c.mu.Lock()
	c.at = time.Now()
	c.mu.Unlock()
	close(c.held)
	w.WriteHeader(http.StatusCreated)
}

// TestInFlightResetsOnlyOnceTheCommitIsHeld: the in-flight fault resets
// the connection after the request's key is claimed and its commit held,
// never before: a retry sent the moment the reset arrives (a transport's
// own re-send) must meet the key in flight, not race the original for it.
func TestInFlightResetsOnlyOnceTheCommitIsHeld(t *testing.T) {
	plan := workload.ClientPlan{Timeout: 2 * time.Second, Hold: time.Second,
		Ops: []workload.ClientOp{{ID: "op-1", Account: "acct-1", Amount: 100, Currency: "usd", Faults: []workload.FrontFault{workload.InFlight}}}}
	next := &claimingAPI{claim: 150 * time.Millisecond, held: make(chan struct{})}
	fr := front.New(front.Config{Plan: plan, Shape: api.JSONShape, Next: next, Since: func() time.Duration { return 0 },
		Hold: func(string, time.Duration) <-chan struct{} { return next.held }})
	srv := httptest.NewServer(fr)
	defer srv.Close()
	res, err := http.Post(srv.URL+api.PathCharges, "application/json", strings.NewReader(`{"account":"acct-1","amount":100,"currency":"usd"}`))
	reset := time.Now()
	if err == nil {
		res.Body.Close()
		t.Fatalf("the in-flight try got %d; want its connection reset", res.StatusCode)
	}
	next.mu.Lock()
	at := next.at
	next.mu.Unlock()
	if at.IsZero() || reset.Before(at) {
		t.Errorf("the connection was reset before the commit was held (held at %v, reset at %v)", at, reset)
	}
	if err := fr.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestStripeShapeSendsNoRetryAfter: Stripe's API sends no Retry-After,
// so neither does the front in its shape, and none is recorded to judge a
// client by; the built-in shape sends the plan's.
func TestStripeShapeSendsNoRetryAfter(t *testing.T) {
	for _, shape := range []api.Shape{api.StripeShape, api.JSONShape} {
		plan := workload.ClientPlan{RetryAfter: 1, Ops: []workload.ClientOp{{ID: "op-1", Account: "acct-1", Amount: 100, Currency: "usd",
			Faults: []workload.FrontFault{workload.Unavailable}}}}
		fr := front.New(front.Config{Plan: plan, Shape: shape, Next: &fakeAPI{served: map[string]int{}}, Since: func() time.Duration { return 0 }})
		srv := httptest.NewServer(fr)
		body, ctype := `{"account":"acct-1","amount":100,"currency":"usd"}`, "application/json"
		if shape.Name == api.StripeShape.Name {
			body, ctype = "customer=acct-1&amount=100&currency=usd", "application/x-www-form-urlencoded"
		}
		res, err := http.Post(srv.URL+api.PathCharges, ctype, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		srv.Close()
		got, _ := fr.Received()
		want := shape.Name != api.StripeShape.Name
		if res.StatusCode != 503 || (res.Header.Get("Retry-After") != "") != want || len(got) != 1 || (got[0].RetryAfter > 0) != want {
			t.Errorf("%s: %d, Retry-After %q, recorded %+v; want 503 with a Retry-After: %v", shape.Name, res.StatusCode,
				res.Header.Get("Retry-After"), got, want)
		}
	}
}

// TestConnectionsAreKept: each request is recorded with its connection,
// and, told of the server's connections, the front notes when the client
// closed one: a retry on the same connection shows the answer was read, a
// closed one that it may not have been.
func TestConnectionsAreKept(t *testing.T) {
	plan := workload.ClientPlan{RetryAfter: 1, Ops: []workload.ClientOp{{ID: "op-1", Account: "acct-1", Amount: 100, Currency: "usd",
		Faults: []workload.FrontFault{workload.Unavailable, workload.RateLimited}}}}
	t0 := time.Now()
	fr := front.New(front.Config{Plan: plan, Shape: api.JSONShape, Next: &fakeAPI{served: map[string]int{}},
		Since: func() time.Duration { return time.Since(t0) }})
	srv := httptest.NewUnstartedServer(fr)
	srv.Config.ConnState = fr.ConnState
	srv.Start()
	defer srv.Close()
	post := func(c *http.Client) {
		res, err := c.Post(srv.URL+api.PathCharges, "application/json", strings.NewReader(`{"account":"acct-1","amount":100,"currency":"usd"}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	kept := &http.Client{Transport: &http.Transport{}}
	post(kept)
	post(kept) // on the first's connection
	kept.CloseIdleConnections()
	closed := func(i, n int) []history.Received { // the requests once the i-th's connection is closed, and n of them
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if got, _ := fr.Received(); len(got) == n && got[i].ConnClosed > 0 {
				return got
			}
		}
		got, _ := fr.Received()
		t.Fatalf("the connection of request %d never noted closed: %+v", i, got)
		return nil
	}
	closed(0, 2)
	post(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}) // a new one
	got := closed(2, 3)
	if got[0].Conn == "" || got[0].Conn != got[1].Conn || got[2].Conn == got[0].Conn {
		t.Fatalf("connections %+v: want the first two on one, the third on another", got)
	}
	if got[0].ConnClosed < got[1].Arrived || got[0].ConnClosed > got[2].Arrived {
		t.Errorf("closed at %s, %s (arrivals %s, %s, %s): want the first connection closed between the second request and the third, "+
			"the third's closed too", got[0].ConnClosed, got[2].ConnClosed, got[0].Arrived, got[1].Arrived, got[2].Arrived)
	}
	if !got[0].ReadBefore(got[1]) || got[1].ReadBefore(got[2]) {
		t.Errorf("read before: %v, %v; want the retry on its connection read, the one after the close not known",
			got[0].ReadBefore(got[1]), got[1].ReadBefore(got[2]))
	}
}

// TestWaitCoversTheRecord: a client sees a dropped answer's reset before
// the front records the request; Wait returns only once it is recorded.
func TestWaitCoversTheRecord(t *testing.T) {
	plan := workload.ClientPlan{Ops: []workload.ClientOp{{ID: "op-1", Account: "acct-1", Amount: 100, Currency: "usd",
		Faults: []workload.FrontFault{workload.DropAfterCommit}}}}
	release := make(chan struct{})
	var calls int
	var mu sync.Mutex
	since := func() time.Duration { // its second call stamps the answer, after the reset
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 2 {
			<-release
		}
		return time.Duration(n)
	}
	fr := front.New(front.Config{Plan: plan, Shape: api.JSONShape, Next: &fakeAPI{served: map[string]int{}}, Since: since})
	srv := httptest.NewServer(fr)
	defer srv.Close()
	if _, err := http.Post(srv.URL+api.PathCharges, "application/json", strings.NewReader(`{"account":"acct-1","amount":100,"currency":"usd"}`)); err == nil {
		t.Fatal("the dropped answer came through")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := fr.Wait(ctx); err == nil {
		got, _ := fr.Received()
		t.Fatalf("Wait returned with %d requests recorded, the reset one not yet", len(got))
	}
	close(release)
	if err := fr.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := fr.Received(); len(got) != 1 || got[0].Fault != string(workload.DropAfterCommit) {
		t.Errorf("recorded %+v; want the dropped request", got)
	}
}
