package client_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// flakyConn answers the first request on each connection, then kills the
// connection without a word when the marked attempt arrives on a reused one:
// exactly the failure after which Go's transport re-sends a request that
// carries an Idempotency-Key.
type flakyConn struct {
	mu   sync.Mutex
	seen map[string]int
}

func (f *flakyConn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(api.HeaderAttempt)
	f.mu.Lock()
	f.seen[id]++
	first := f.seen[id] == 1
	f.mu.Unlock()
	if id == "victim" && first {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	w.WriteHeader(http.StatusCreated)
}

func (f *flakyConn) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[id]
}

// TestNaiveTransportResendsBehindTheCallersBack demonstrates the trap: one
// client.Do, two requests on the server.
func TestNaiveTransportResendsBehindTheCallersBack(t *testing.T) {
	f := &flakyConn{seen: map[string]int{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	post := func(id string) error {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(`{}`)))
		req.Header.Set(api.HeaderKey, "k")
		req.Header.Set(api.HeaderAttempt, id)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := post("warm"); err != nil {
		t.Fatal(err)
	}
	_ = post("victim")
	if n := f.count("victim"); n != 2 {
		t.Fatalf("server saw the attempt %d times; the naive transport was expected to re-send it once", n)
	}
}

// TestClientNeverResendsHidden: the harness client on reused connections
// reports the failure instead of re-sending.
func TestClientNeverResendsHidden(t *testing.T) {
	f := &flakyConn{seen: map[string]int{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	cl := client.New(client.Config{Routes: routesTo(srv.URL), Reuse: true, Policy: fastPolicy()})
	warm := workload.Op{ID: 0, Key: "w", Account: "a", Amount: 1, Currency: "EUR", Group: -1, After: -1, MaxTries: 1}
	cl.Run(context.Background(), workload.Plan{Ops: []workload.Op{warm}})
	// The victim is op 0, try 1 of a second plan, whose attempt id we mark.
	f.mu.Lock()
	f.seen = map[string]int{}
	f.mu.Unlock()
	victim := client.AttemptID(0, 1)
	marked := &flakyConn{seen: map[string]int{}}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(api.HeaderAttempt) == victim {
			r.Header.Set(api.HeaderAttempt, "victim")
		}
		marked.ServeHTTP(w, r)
	})
	got := cl.Run(context.Background(), workload.Plan{Ops: []workload.Op{warm}})
	if n := marked.count("victim"); n != 1 {
		t.Fatalf("server saw attempt %s %d times; want 1 (no hidden re-send)", victim, n)
	}
	if len(got) != 1 || !got[0].Reused || got[0].Err == "" {
		t.Fatalf("client recorded %+v; want one failed attempt on a reused connection", got)
	}
}
