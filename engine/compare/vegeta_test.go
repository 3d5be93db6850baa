package compare

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestVegetaTargetsAreTheOpenModelsRequests: vegeta is handed the requests
// idemchaos's open model sends with the same seed (keys, bodies and the
// retries among them), each as vegeta's JSON target, and a second's more.
func TestVegetaTargetsAreTheOpenModelsRequests(t *testing.T) {
	open := load.Config{Rate: 50, Duration: 2 * time.Second, DupRatio: 0.3, Seed: 7}
	sc := bufio.NewScanner(newTargets("http://127.0.0.1:9/v1/charges", open))
	gen := load.NewGen(open)
	n, dups := 0, 0
	for ; sc.Scan(); n++ {
		var got vegetaTarget
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %v: %s", n, err, sc.Bytes())
		}
		want := gen.Next(n)
		var body api.ChargeRequest
		if err := json.Unmarshal(got.Body, &body); err != nil {
			t.Fatalf("line %d: body %q: %v", n, got.Body, err)
		}
		if got.Method != "POST" || got.URL != "http://127.0.0.1:9/v1/charges" ||
			strings.Join(got.Header[api.HeaderKey], ",") != want.Key || got.Header["Content-Type"][0] != "application/json" ||
			body != (api.ChargeRequest{Account: want.Account, Amount: want.Amount, Currency: want.Currency}) {
			t.Fatalf("line %d: %+v (body %+v), want %+v", n, got, body, want)
		}
		if want.Dup {
			dups++
		}
	}
	if want := open.Scheduled() + 50; n != want {
		t.Errorf("%d targets, want %d (the open model's %d and a second's more)", n, want, open.Scheduled())
	}
	if dups == 0 {
		t.Error("no retry among the targets")
	}
}

func TestVegetaReport(t *testing.T) {
	ok := `{"latencies":{"50th":1654815,"90th":1995218},"requests":400,"success":0.99,` +
		`"status_codes":{"201":396,"409":3,"0":1},"errors":["dial tcp: connection refused"]}`
	p50, n, err := VegetaP50([]byte(ok))
	if err != nil || p50 != 1.654815 || n != 400 {
		t.Errorf("p50 %v ms, %v requests, %v", p50, n, err)
	}
	lost := `{"latencies":{"50th":1000},"requests":100,"status_codes":{"201":90,"0":10},"errors":["read: connection reset by peer"]}`
	if _, _, err := VegetaP50([]byte(lost)); err == nil || !strings.Contains(err.Error(), "10 of 100") ||
		!strings.Contains(err.Error(), "connection reset") {
		t.Errorf("10 %% unanswered: %v", err)
	}
	for _, bad := range []string{`{"requests":0}`, "vegeta: unknown flag\n"} {
		if _, _, err := VegetaP50([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestVegetaRate(t *testing.T) {
	for rate, want := range map[float64]string{200: "200/1s", 1: "1/1s", 0.5: "500/1000s", 123.4567: "123457/1000s"} {
		if got := vegetaRate(rate); got != want {
			t.Errorf("rate %v: %q, want %q", rate, got, want)
		}
	}
}
