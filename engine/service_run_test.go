package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// till is a correct in-memory payment service: a key is claimed before the
// charge (a duplicate in flight gets 409), its answer stored for replays.
type till struct {
	mu      sync.Mutex
	charges []history.Charge
	answers map[string][]byte
}

func (s *till) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req api.ChargeRequest
	key := r.Header.Get(api.HeaderKey)
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || key == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.answers[key]; ok {
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(a)
		return
	}
	id := fmt.Sprintf("ch_%d", len(s.charges)+1)
	s.charges = append(s.charges, history.Charge{ID: id, Key: key, Account: req.Account, Amount: req.Amount})
	s.answers[key], _ = json.Marshal(map[string]any{"id": id, "account": req.Account, "amount": req.Amount})
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(s.answers[key])
}

// ledger is its ledger, unreachable while broken is set.
func (s *till) ledger(broken *atomic.Bool) engine.LedgerReader {
	return ledgerFunc(func(_ context.Context, keys []string) ([]history.Charge, error) {
		if broken.Load() {
			return nil, errors.New("ledger: connection refused")
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		var out []history.Charge
		for _, c := range s.charges {
			if strings.Contains(strings.Join(keys, ","), c.Key) {
				out = append(out, c)
			}
		}
		return out, nil
	})
}

type ledgerFunc func(ctx context.Context, keys []string) ([]history.Charge, error)

func (f ledgerFunc) Charges(ctx context.Context, keys []string) ([]history.Charge, error) {
	return f(ctx, keys)
}

// breakSecond breaks the ledger while the second cell runs.
type breakSecond struct {
	broken  *atomic.Bool
	started int
}

func (b *breakSecond) Start(scenarios.Cell)                            { b.started++; b.broken.Store(b.started == 2) }
func (b *breakSecond) Finish(res scenarios.Result, _ scenarios.Record) { b.broken.Store(false) }

// TestServiceCellErrorIsThatCellsResult: a cell the harness could not run
// (the service's ledger stopped answering) is that cell's result,
// inconclusive with the error, and the cells after it still run.
func TestServiceCellErrorIsThatCellsResult(t *testing.T) {
	s := &till{answers: map[string][]byte{}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	toxi, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer toxi.Close()
	var broken atomic.Bool
	e := scenarios.External{Name: "till", URLs: []string{srv.URL}, LedgerQuery: "(test)", ClaimTimeout: scenarios.DefaultClaimTimeout}
	svc, err := engine.NewService(e, toxi, nil, s.ledger(&broken), engine.LedgerInfo{ChargeIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	var cells []scenarios.Cell
	for seed := uint64(1); seed <= 3; seed++ {
		cells = append(cells, scenarios.Cell{Strategy: e.Name, Scenario: "dropped-response", Seed: seed, Profile: api.IETF, Target: &e})
	}
	out, err := engine.RunService(context.Background(), svc, cells, engine.ServiceBatch{Watch: &breakSecond{broken: &broken}})
	if err != nil {
		t.Fatalf("RunService: %v", err)
	}
	if len(out.Results) != 3 {
		t.Fatalf("%d results, want 3", len(out.Results))
	}
	for i, r := range out.Results {
		failed := i == 1
		switch {
		case failed && (r.Verdict != scenarios.Inconclusive || !strings.Contains(r.Error, "connection refused")):
			t.Errorf("seed %d: %s, error %q; want inconclusive with the ledger's error", r.Seed, r.Verdict, r.Error)
		case !failed && (r.Verdict != scenarios.Pass || r.Error != ""):
			t.Errorf("seed %d: %s, error %q, assumptions %q; want pass", r.Seed, r.Verdict, r.Error, r.Assumptions)
		}
	}
}
