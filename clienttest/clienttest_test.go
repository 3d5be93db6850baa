package clienttest_test

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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/clienttest"
	"github.com/idemchaos/idemchaos/scenarios"
)

func TestMain(m *testing.M) { os.Exit(clienttest.Main(m)) }

// charger is a payments client as a team writes one with net/http: a key
// per operation (or, with newKeyPerTry, per try), five tries with
// exponential back-off that honours Retry-After.
func charger(newKeyPerTry bool) func(ctx context.Context, c clienttest.Call) error {
	return func(ctx context.Context, c clienttest.Call) error {
		body, _ := json.Marshal(map[string]any{"account": c.Op.Account, "amount": c.Op.Amount, "currency": c.Op.Currency})
		client := &http.Client{Timeout: c.Timeout}
		key, wait := newKey(), 250*time.Millisecond
		var last error
		for try := 1; try <= 5; try++ {
			if try > 1 {
				time.Sleep(wait)
				wait *= 2
			}
			if newKeyPerTry {
				key = newKey()
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.URL+"/v1/charges", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", key)
			res, err := client.Do(req)
			if err != nil {
				last = err
				continue
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode < 300 {
				return nil
			}
			last = fmt.Errorf("the payment API answered %d", res.StatusCode)
			if res.StatusCode != http.StatusConflict && res.StatusCode != http.StatusTooManyRequests && res.StatusCode < 500 {
				return last
			}
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil {
				wait = max(wait, time.Duration(s)*time.Second)
			}
		}
		return last
	}
}

func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func seeds() clienttest.Option {
	if testing.Short() {
		return clienttest.Seeds(1)
	}
	return clienttest.Seeds(1, 2, 3)
}

func TestGoClientThatKeepsItsKeyPasses(t *testing.T) {
	for _, r := range clienttest.Run(t, clienttest.Func(charger(false)), seeds()) {
		if r.Verdict != scenarios.Pass || !r.Exercised || r.Strategy != t.Name() {
			t.Errorf("seed %d: %s, exercised %v, named %q", r.Seed, r.Verdict, r.Exercised, r.Strategy)
		}
	}
}

// recorder keeps the errors a run reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

func TestGoClientWithAKeyPerTryIsReported(t *testing.T) {
	rec := &recorder{TB: t}
	rs := clienttest.Run(rec, clienttest.Func(charger(true)), clienttest.Seeds(2))
	all := strings.Join(rec.errors, "\n")
	if len(rs) != 1 || rs[0].Verdict != scenarios.Fail || !strings.Contains(all, "retry_new_key: op-") ||
		!strings.Contains(all, "broke its half of the contract") {
		t.Fatalf("a key per try: results %+v, errors:\n%s", rs, all)
	}
}

func TestCommandClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("this test needs Node (apt-get install nodejs): %v", err)
	}
	script, _ := filepath.Abs(filepath.Join("..", "examples", "clients", "fetch-client.mjs"))
	rs := clienttest.Run(t, clienttest.Command(node, script), clienttest.Seeds(4), clienttest.Shape("stripe"))
	if len(rs) != 1 || rs[0].Verdict != scenarios.Pass || rs[0].Scenario != "client/stripe" {
		t.Fatalf("%+v", rs)
	}
}

func TestUnknownShapeIsAnError(t *testing.T) {
	rec := &recorder{TB: t}
	clienttest.Run(rec, clienttest.Func(charger(false)), clienttest.Shape("soap"), clienttest.Seeds(1))
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "unknown API shape") {
		t.Fatalf("errors %q", rec.errors)
	}
}
