package scenariotest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenariotest"
)

// slowShop is an idempotent shop whose charge takes chargeTime. With a
// claimTTL it makes the lock-expiry mistake: a claim older than that is
// taken for abandoned and claimed again, though its charge is still
// running, so a retry arriving then charges a second time.
type slowShop struct {
	chargeTime, claimTTL time.Duration

	mu      sync.Mutex
	keys    map[string]*slowEntry
	charges []scenariotest.Charge
}

type slowEntry struct {
	body    string
	claimed time.Time
	answer  []byte // nil: in flight
}

func newSlowShop(charge, claimTTL time.Duration) *slowShop {
	return &slowShop{chargeTime: charge, claimTTL: claimTTL, keys: map[string]*slowEntry{}}
}

func (s *slowShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Account string `json:"account"`
		Amount  int64  `json:"amount"`
	}
	key := r.Header.Get("Idempotency-Key")
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || key == "" {
		http.Error(w, `{"code":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	body := fmt.Sprint(req)
	if !s.claim(w, key, body) {
		return
	}
	time.Sleep(s.chargeTime) // the work outlives its client, as a payment's must
	s.mu.Lock()
	id := fmt.Sprintf("ch_%d", len(s.charges)+1)
	s.charges = append(s.charges, scenariotest.Charge{ID: id, Key: key, Account: req.Account, Amount: req.Amount})
	answer, _ := json.Marshal(map[string]any{"id": id, "account": req.Account, "amount": req.Amount})
	if s.keys[key].answer == nil {
		s.keys[key].answer = answer
	}
	answer = s.keys[key].answer
	s.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(answer)
}

func (s *slowShop) claim(w http.ResponseWriter, key, body string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.keys[key]
	switch {
	case !ok:
		s.keys[key] = &slowEntry{body: body, claimed: time.Now()}
		return true
	case e.body != body:
		http.Error(w, `{"code":"idempotency_key_reused"}`, http.StatusUnprocessableEntity)
	case e.answer != nil:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(e.answer)
	case s.claimTTL > 0 && time.Since(e.claimed) > s.claimTTL: // the mistake
		e.claimed = time.Now()
		return true
	default:
		http.Error(w, `{"code":"idempotency_key_in_use"}`, http.StatusConflict)
	}
	return false
}

func (s *slowShop) ledger(_ context.Context, keys []string) ([]scenariotest.Charge, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []scenariotest.Charge
	for _, c := range s.charges {
		for _, k := range keys {
			if c.Key == k {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

func slowTarget(s *slowShop) scenariotest.Target {
	return scenariotest.Target{Handler: s, Ledger: scenariotest.LedgerFunc(s.ledger), LedgerInfo: scenariotest.LedgerInfo{ChargeIDs: true}}
}

// TestClientTimeoutRetryFromOutside: against a service slow by nature,
// client-timeout-retry runs with no failpoints, its client timed out inside
// the measured charge: a correct slow service passes and the result says
// how the scenario was adapted; one whose claim expires during its charge
// double-charges; a fast one is skipped, with the reason.
func TestClientTimeoutRetryFromOutside(t *testing.T) {
	res, err := scenariotest.Check(t.Context(), slowTarget(newSlowShop(150*time.Millisecond, 0)), "client-timeout-retry")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Pass || len(res.Adapted) == 0 || !strings.Contains(res.Adapted[0], "charge (median of 5, measured first)") {
		t.Fatalf("correct and slow: verdict %s, assumptions %q, findings %v, adapted %q; want a pass saying how it was adapted",
			res.Verdict, res.Assumptions, res.Findings, res.Adapted)
	}
	res, err = scenariotest.Check(t.Context(), slowTarget(newSlowShop(150*time.Millisecond, 60*time.Millisecond)), "client-timeout-retry")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Fail || res.Anomalies["double_charge"] == 0 {
		t.Fatalf("claim shorter than the charge: verdict %s, anomalies %v, assumptions %q; want double_charge", res.Verdict, res.Anomalies, res.Assumptions)
	}
	_, err = scenariotest.Check(t.Context(), target(newShop(true)), "client-timeout-retry")
	var skip *scenarios.SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "too fast to time a client out inside the charge from outside") {
		t.Fatalf("fast shop: err %v; want a SkipError saying it charges too fast", err)
	}
}
