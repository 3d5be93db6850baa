package clientmode_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
)

// byHand is a client run by hand against the API client mode serves: it
// reads what Served gave it, charges each operation with a key of its own
// kept on every try (five tries, backing off 300 ms doubling, at least the
// Retry-After), and POSTs its outcome lines to the API's told endpoint.
func byHand(t *testing.T, env []string) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	b, err := os.ReadFile(vars["IDEMCHAOS_OPS"])
	var ops []struct {
		Op, Account, Currency string
		Amount                int64
	}
	if err == nil {
		err = json.Unmarshal(b, &ops)
	}
	if err != nil {
		t.Errorf("the operations: %v", err)
		return
	}
	ms, _ := strconv.Atoi(vars["IDEMCHAOS_TIMEOUT_MS"])
	client := &http.Client{Timeout: time.Duration(ms) * time.Millisecond}
	var told strings.Builder
	for _, op := range ops {
		body, _ := json.Marshal(map[string]any{"account": op.Account, "amount": op.Amount, "currency": op.Currency})
		fmt.Fprintf(&told, "%s %s\n", op.Op, charge(func() *http.Client { return client }, vars["IDEMCHAOS_URL"], body))
	}
	res, err := http.Post(vars["IDEMCHAOS_URL"]+clientmode.ToldPath, "text/plain", strings.NewReader(told.String()))
	if err != nil || res.StatusCode != http.StatusNoContent {
		t.Errorf("POST the outcome lines: %v %v", res, err)
		return
	}
	res.Body.Close()
}

// charge makes one operation as byHand does, each try with the client
// clientFor gives it.
func charge(clientFor func() *http.Client, url string, body []byte) string {
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	wait := 300 * time.Millisecond
	for try := 1; try <= 5; try++ {
		req, _ := http.NewRequest(http.MethodPost, url+api.PathCharges, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(api.HeaderKey, hex.EncodeToString(key))
		res, err := clientFor().Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode/100 == 2 {
				return "succeeded"
			}
			if s, _ := strconv.Atoi(res.Header.Get("Retry-After")); time.Duration(s)*time.Second > wait {
				wait = time.Duration(s) * time.Second
			}
		}
		time.Sleep(wait)
		wait *= 2
	}
	return "failed gave up"
}

// TestServedClientByHand: --serve's API, given to a client run by hand
// that keeps its key and POSTs its outcomes, is judged as a child's run:
// a pass, every operation sent and told, on the address asked for.
func TestServedClientByHand(t *testing.T) {
	t.Parallel()
	var served []string
	cfg := clientmode.Config{Serve: "127.0.0.1:0", Shape: api.JSONShape, Seed: 3, Ops: 6, Bound: 2 * time.Minute, Services: services,
		Served: func(env []string) {
			served = env
			go byHand(t, env)
		}}
	rec, err := clientmode.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := scenarios.JudgeClient(rec)
	if res.Verdict != scenarios.Pass || !res.Exercised || len(rec.Run.Told) != 6 {
		t.Errorf("%s (exercised %v), %d told: %v %v", res.Verdict, res.Exercised, len(rec.Run.Told), nonZero(res.Anomalies), res.Assumptions)
	}
	if !strings.HasPrefix(strings.Join(served, " "), "IDEMCHAOS_URL=http://127.0.0.1:") {
		t.Errorf("served %q: want the API's loopback URL first", served)
	}
}

// TestServedClientWhoseLinesEnd: outcome lines that end before every
// operation has one end the run, and it proves nothing.
func TestServedClientWhoseLinesEnd(t *testing.T) {
	t.Parallel()
	cfg := clientmode.Config{Serve: "127.0.0.1:0", Shape: api.JSONShape, Seed: 1, Ops: 6, Bound: time.Minute, Services: services,
		Told: strings.NewReader("op-01 failed not even tried\n")}
	rec, err := clientmode.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := scenarios.JudgeClient(rec)
	if res.Verdict != scenarios.Inconclusive || !strings.Contains(strings.Join(res.Assumptions, "; "), "its outcome lines ended") {
		t.Errorf("%s %q; want inconclusive, its lines ended", res.Verdict, res.Assumptions)
	}
}
