package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// lateMySQLService answers every charge at once and writes its row to a
// MariaDB ledger later, some rows well after the last answer: no
// idempotency at all, so every duplicate is a double charge, most of them
// late.
type lateMySQLService struct {
	ledger mysqlLedger
	n      atomic.Int64
	wg     sync.WaitGroup
}

func (s *lateMySQLService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req api.ChargeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := s.n.Add(1)
	var key any
	if k := r.Header.Get(api.HeaderKey); k != "" {
		key = k
	}
	attempt := r.Header.Get(api.HeaderAttempt)
	s.wg.Add(1)
	time.AfterFunc(50*time.Millisecond+time.Duration(n%10)*60*time.Millisecond, func() {
		defer s.wg.Done()
		_, _ = s.ledger.db.Exec(`INSERT INTO payments (reference, customer, cents, attempt) VALUES (?, ?, ?, ?)`,
			key, req.Account, req.Amount, attempt)
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":"late_%d","account":%q,"amount":%d}`, n, req.Account, req.Amount)
}

// runOnMySQL runs concurrent-duplicates, seed 1, against srv with its
// ledger on MariaDB opened as the command line opens it (OpenService).
func runOnMySQL(t *testing.T, srv *httptest.Server, l mysqlLedger, settle time.Duration) scenarios.Result {
	t.Helper()
	e := scenarios.External{Name: "late", URLs: []string{srv.URL}, LedgerQuery: mysqlLedgerQuery,
		ClaimTimeout: scenarios.DefaultClaimTimeout, Settle: settle}
	ctx := context.Background()
	svc, err := engine.OpenService(ctx, e, l.url)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	cell := scenarios.Cell{Strategy: e.Name, Scenario: "concurrent-duplicates", Seed: 1, Profile: api.IETF, Target: &e}
	out, err := engine.RunService(ctx, svc, []scenarios.Cell{cell}, engine.ServiceBatch{})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("RunService: %d results, %v", len(out.Results), err)
	}
	return out.Results[0]
}

// TestMySQLLateChargesAreWaitedFor is TestLateChargesAreWaitedFor of the
// command line (Postgres) on a MySQL ledger, through the one settle path:
// the ledger is read until it stops changing, so every late double charge
// is in the ground truth; and a ledger still moving at the settle bound
// makes the run inconclusive, never a pass.
func TestMySQLLateChargesAreWaitedFor(t *testing.T) {
	l := newMySQLLedger(t)
	s := &lateMySQLService{ledger: l}
	srv := httptest.NewServer(s)
	defer srv.Close()
	r := runOnMySQL(t, srv, l, 0)
	s.wg.Wait()
	// 10 trials of 6 duplicates a round and their replay probes, every one
	// charged; the ledger also holds the charges that measured the service.
	if r.Power == nil || r.Power.Rounds < 1 {
		t.Fatalf("%s, no rounds: %+v", r.Verdict, r.Power)
	}
	keys := 10 * r.Power.Rounds
	if want := l.rows(t) - scenarios.CalibrationCharges - keys; r.Verdict != scenarios.Fail || r.Anomalies[check.DoubleCharge] != want {
		t.Fatalf("%s with %d double charges; the final ledger holds %d rows for %d keys and %d measuring charges (want %d)",
			r.Verdict, r.Anomalies[check.DoubleCharge], l.rows(t), keys, scenarios.CalibrationCharges, want)
	}
	s.n.Store(0)
	r = runOnMySQL(t, srv, l, 200*time.Millisecond)
	s.wg.Wait()
	if r.Verdict != scenarios.Inconclusive || !strings.Contains(strings.Join(r.Assumptions, "\n"), "the ledger was still changing") {
		t.Fatalf("%s, assumptions %q; want inconclusive with the ledger still changing at the bound", r.Verdict, r.Assumptions)
	}
}
