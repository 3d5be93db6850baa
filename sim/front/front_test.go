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
		Hold: func(id string, d time.Duration) {
			heldMu.Lock()
			held = append(held, fmt.Sprintf("%s %s", id, d))
			heldMu.Unlock()
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
