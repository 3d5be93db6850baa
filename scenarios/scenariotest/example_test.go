package scenariotest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/scenariotest"
	"github.com/idemchaos/idemchaos/sim/history"
)

// shop is a tiny payment service, the kind a team tests: POST /v1/charges
// with an Idempotency-Key, and a ledger in memory. With idempotent false it
// charges every request, as a service without the pattern does.
type shop struct {
	idempotent bool
	mu         sync.Mutex
	charges    []history.Charge
	keys       map[string]*entry
}

type entry struct {
	body   string // the request, to refuse a changed payload
	done   bool
	answer []byte
}

func newShop(idempotent bool) *shop { return &shop{idempotent: idempotent, keys: map[string]*entry{}} }

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Account string `json:"account"`
		Amount  int64  `json:"amount"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"code":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	key, body := r.Header.Get("Idempotency-Key"), fmt.Sprint(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idempotent {
		if key == "" {
			http.Error(w, `{"code":"idempotency_key_missing"}`, http.StatusBadRequest)
			return
		}
		if e, ok := s.keys[key]; ok {
			s.replay(w, e, body)
			return
		}
		s.keys[key] = &entry{body: body}
	}
	id := fmt.Sprintf("ch_%d", len(s.charges)+1)
	s.charges = append(s.charges, history.Charge{ID: id, Key: key, Account: req.Account, Amount: req.Amount})
	answer, _ := json.Marshal(map[string]any{"id": id, "account": req.Account, "amount": req.Amount})
	if e := s.keys[key]; e != nil {
		e.done, e.answer = true, answer
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(answer)
}

func (s *shop) replay(w http.ResponseWriter, e *entry, body string) {
	switch {
	case e.body != body:
		http.Error(w, `{"code":"idempotency_key_reused"}`, http.StatusUnprocessableEntity)
	case !e.done:
		http.Error(w, `{"code":"idempotency_key_in_use"}`, http.StatusConflict)
	default:
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(e.answer)
	}
}

// ledger is the ground truth the harness reads after the run.
func (s *shop) ledger(_ context.Context, keys []string) ([]history.Charge, error) {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []history.Charge
	for _, c := range s.charges {
		if want[c.Key] {
			out = append(out, c)
		}
	}
	return out, nil
}

func target(s *shop) scenariotest.Target {
	return scenariotest.Target{Handler: s, Ledger: scenariotest.LedgerFunc(s.ledger),
		LedgerInfo: scenariotest.LedgerInfo{ChargeIDs: true}}
}

// TestShopIsIdempotent is what a team writes: the correct shop passes.
func TestShopIsIdempotent(t *testing.T) {
	scenariotest.Run(t, target(newShop(true)), "concurrent-duplicates", "dropped-response", "payload-mismatch", "missing-key")
}
