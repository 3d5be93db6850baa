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
	return runCellOnMySQL(t, srv, l, mysqlLedgerQuery, "concurrent-duplicates", api.IETF, settle)
}

// runCellOnMySQL runs scenario, seed 1, under profile against srv with
// its ledger on MariaDB read with query, opened by OpenService.
func runCellOnMySQL(t *testing.T, srv *httptest.Server, l mysqlLedger, query, scenario string, profile api.Profile, settle time.Duration) scenarios.Result {
	t.Helper()
	e := scenarios.External{Name: "mysql-svc", URLs: []string{srv.URL}, LedgerQuery: query,
		ClaimTimeout: scenarios.DefaultClaimTimeout, Settle: settle}
	ctx := context.Background()
	svc, err := engine.OpenService(ctx, e, l.url)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	cell := scenarios.Cell{Strategy: e.Name, Scenario: scenario, Seed: 1, Profile: profile, Target: &e}
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

// keylessMySQLService charges on MariaDB at once and answers 201 with the
// row's id; a keyed charge is made once per key (a replay answers the
// first), a keyless one every time (stripe's contract), its attempt id
// in the row.
type keylessMySQLService struct {
	ledger  mysqlLedger
	mu      sync.Mutex
	answers map[string][]byte
}

func (s *keylessMySQLService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req api.ChargeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key := r.Header.Get(api.HeaderKey)
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if a, ok := s.answers[key]; ok && key != "" {
		w.Header().Set(api.HeaderReplayed, "true")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(a)
		return
	}
	var k any
	if key != "" {
		k = key
	}
	res, err := s.ledger.db.Exec(`INSERT INTO payments (reference, customer, cents, attempt) VALUES (?, ?, ?, ?)`,
		k, req.Account, req.Amount, r.Header.Get(api.HeaderAttempt))
	var id int64
	if err == nil {
		id, err = res.LastInsertId()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	a := fmt.Appendf(nil, `{"id":"ch_%d","account":%q,"amount":%d}`, id, req.Account, req.Amount)
	if key != "" {
		s.answers[key] = a
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(a)
}

// TestMySQLKeylessChargesAreReadBack is TestKeylessChargesAreReadBack and
// TestSameSeedTwiceAgainstOneLedger of the command line on a MySQL
// ledger: a stripe service charges POSTs without a key; the ledger's
// attempt ids give those charges back, so it passes missing-key with no
// ack taken for lost; the same seed again, against the same ledger whose
// keyless rows carry the same attempt ids, passes too; without attempt
// ids the keyless acks are not judged against the ledger at all.
func TestMySQLKeylessChargesAreReadBack(t *testing.T) {
	l := newMySQLLedger(t)
	srv := httptest.NewServer(&keylessMySQLService{ledger: l, answers: map[string][]byte{}})
	defer srv.Close()
	withoutAttempts := "SELECT reference AS idempotency_key, customer AS account, cents AS amount, CONCAT('ch_', id) AS id FROM payments"
	for i, query := range []string{mysqlLedgerQuery, mysqlLedgerQuery, withoutAttempts} {
		r := runCellOnMySQL(t, srv, l, query, "missing-key", api.Stripe, 0)
		if r.Verdict != scenarios.Pass || r.Anomalies[check.LostAck] > 0 {
			t.Errorf("run %d (%s): %s with %v, error %q, assumptions %q; want a pass with no lost ack", i+1, query, r.Verdict, r.Anomalies, r.Error, r.Assumptions)
		}
	}
	var keyless int
	if err := l.db.QueryRow(`SELECT COUNT(*) FROM payments WHERE reference IS NULL`).Scan(&keyless); err != nil || keyless == 0 {
		t.Fatalf("%d keyless rows (%v): the runs charged nothing without a key", keyless, err)
	}
}
