package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// post sends a charge with the protocol's headers (control "" : none).
func post(t *testing.T, base, key, attempt, control string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+api.PathCharges, strings.NewReader(charge1250))
	if err != nil {
		t.Fatal(err)
	}
	req.Close = true
	req.Header.Set(api.HeaderKey, key)
	req.Header.Set(api.HeaderAttempt, attempt)
	if control != "" {
		req.Header.Set(remote.Header, control)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestFailpointsReachTheHarness: with --failpoints, a request carrying the
// control URL reports every point its strategy passes, in order, and waits
// where the harness holds it; one without the header reports nothing; a
// harness gone is said once on stderr and the requests still succeed.
func TestFailpointsReachTheHarness(t *testing.T) {
	dsn := provisiontest.Database(t, services)
	d := startDaemon(t, nil, "--strategy", "pg-tx", "--failpoints", "--listen", "127.0.0.1:0",
		"--redis-url", services.RedisURL, "--postgres-url", dsn)
	if d.line("paymentd: failpoints: on") == "" {
		t.Errorf("the banner does not say the failpoints are on:\n%s", d.output())
	}
	set := &failpoint.Set{}
	var mu sync.Mutex
	var seen []string
	for _, p := range api.Points() {
		set.Arm("trace", p, failpoint.Any, func(_ context.Context, h failpoint.Hit) func() {
			mu.Lock()
			seen = append(seen, h.AttemptID+"@"+string(h.Point))
			mu.Unlock()
			return nil
		})
	}
	set.Arm("inject", api.BeforeCommit, failpoint.Attempt("a1"), func(context.Context, failpoint.Hit) func() {
		time.Sleep(300 * time.Millisecond)
		return nil
	})
	srv, err := remote.Listen(set)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if code := post(t, d.url, "fp-key-1", "a1", srv.URL(0)); code != http.StatusCreated {
		t.Fatalf("charge with the header: %d", code)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("the charge took %v: the delay at before-commit was not held", took)
	}
	if code := post(t, d.url, "fp-key-2", "a2", ""); code != http.StatusCreated {
		t.Fatalf("charge without the header: %d", code)
	}
	mu.Lock()
	got := strings.Join(seen, " ")
	mu.Unlock()
	for _, p := range api.Points() {
		if !strings.Contains(got, "a1@"+string(p)) {
			t.Errorf("harness saw %q: no %s of a1", got, p)
		}
	}
	if strings.Contains(got, "a2") {
		t.Errorf("harness saw %q: a request without the header called it", got)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	for i, a := range []string{"a3", "a4"} {
		if code := post(t, d.url, "fp-key-gone-"+a, a, srv.URL(0)); code != http.StatusCreated {
			t.Errorf("charge %d with the harness gone: %d", i, code)
		}
	}
	for deadline := time.Now().Add(2 * time.Second); d.line("paymentd: failpoints: harness") == "" && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // stderr is read as it comes
	}
	if n := strings.Count(d.output(), "unreachable"); n != 1 {
		t.Errorf("an unreachable harness said %d times, want once:\n%s", n, d.output())
	}
}
