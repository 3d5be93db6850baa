package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The tests of this file are the ways a run against a user's service
// could pass without proving anything, and show that none of them does.

// userLedger is a database of the user's own: a charges table the ledger
// query reads.
type userLedger struct {
	dsn  string
	pool *pgxpool.Pool
}

const userLedgerQuery = "SELECT idempotency_key, account, amount, attempt_id FROM charges"

func newUserLedger(t *testing.T) userLedger {
	t.Helper()
	ctx := context.Background()
	dsn, err := services.CreateDatabase(ctx, "user")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = services.DropDatabase(context.Background(), dsn) })
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `CREATE TABLE charges (id bigserial, idempotency_key text, account text, amount bigint, attempt_id text)`); err != nil {
		t.Fatal(err)
	}
	return userLedger{dsn: dsn, pool: pool}
}

func (l userLedger) rows(t *testing.T) int {
	t.Helper()
	var n int
	if err := l.pool.QueryRow(context.Background(), `SELECT count(*) FROM charges`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// against runs idemchaos against url with the user's ledger.
func (l userLedger) against(t *testing.T, url string, args ...string) outcome {
	t.Helper()
	full := append([]string{"run", "--target-url", url, "--ledger-url", l.dsn, "--ledger-query", userLedgerQuery}, args...)
	return cliEnv(t, nil, full...)
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	// A socket bound and never listening refuses every connection, and
	// holds its port until the test ends: a port merely closed again can
	// be taken by a server of a test beside this one (a MySQL driver then
	// met a server that hung up: "invalid connection").
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}

func TestTargetDownIsAnEnvironmentError(t *testing.T) {
	l := newUserLedger(t)
	url := "http://" + closedPort(t)
	for _, sc := range []string{"concurrent-duplicates", "payload-mismatch", "missing-key"} {
		o := l.against(t, url, "--scenario", sc)
		if o.code != exitEnv || !strings.Contains(o.stderr, "nothing answers there") || !strings.Contains(o.stderr, url) {
			t.Errorf("%s against a service that is down: exit %d, stderr %q; want exit 3 saying nothing answers at %s", sc, o.code, o.stderr, url)
		}
	}
}

// TestTargetThatNeverAnswersIsAnEnvironmentError: something takes the
// connections but never answers HTTP (a wrong port, a crashed worker).
func TestTargetThatNeverAnswersIsAnEnvironmentError(t *testing.T) {
	t.Parallel() // half a minute of the CLI's timeouts, its own listener and ledger
	l := newUserLedger(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<10))
			c.Close()
		}
	}()
	o := l.against(t, "http://"+ln.Addr().String(), "--scenario", "missing-key")
	if o.code != exitEnv || !strings.Contains(o.stderr, "target never answered") {
		t.Fatalf("exit %d, stderr %q; want exit 3: target never answered", o.code, o.stderr)
	}
	// measuring it stopped once the charges left could not be enough
	if !strings.Contains(o.stderr, "only 0 of the 3 charges sent to measure the service were answered 2xx (3 of 5 needed)") {
		t.Errorf("stderr %q; want the measuring to stop after 3 charges without an answer", o.stderr)
	}
}

func TestTargetAnswering404EverywhereIsInconclusive(t *testing.T) {
	t.Parallel()
	l := newUserLedger(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	for _, sc := range []string{"concurrent-duplicates", "payload-mismatch", "missing-key"} {
		o := l.against(t, srv.URL+"/wrong", "--scenario", sc)
		if o.code != exitInconclusive || !strings.Contains(o.stdout, "wrong path") {
			t.Errorf("%s against a wrong path: exit %d\n%s\n%s; want exit 4 naming the wrong path", sc, o.code, o.stdout, o.stderr)
		}
		// the query names attempt ids but no charge ids: one line says what adding id gives
		if !strings.Contains(o.stderr, "hint: add id (") || strings.Contains(o.stderr, "attempt_id (") {
			t.Errorf("%s: no hint about the missing id column, or one about attempt_id it has:\n%s", sc, o.stderr)
		}
	}
}

// TestTargetRefusingEveryChargeIsInconclusive: a service that takes none
// of the requests (a body it does not understand) exercised no key.
func TestTargetRefusingEveryChargeIsInconclusive(t *testing.T) {
	l := newUserLedger(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"code":"invalid_request"}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	o := l.against(t, srv.URL, "--scenario", "concurrent-duplicates")
	if o.code != exitInconclusive || !strings.Contains(o.stdout, "no charge with a key was accepted") || !strings.Contains(o.stdout, "400") {
		t.Fatalf("exit %d\n%s\n%s; want exit 4: no keyed charge accepted", o.code, o.stdout, o.stderr)
	}
}

// TestEchoServerNeverPasses: a server that answers 201 to everything and
// charges nothing is told apart from a payment service by the ledger.
func TestEchoServerNeverPasses(t *testing.T) {
	t.Parallel() // its own server and ledger; no verdict of it rests on timing
	l := newUserLedger(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = io.Copy(w, r.Body)
	}))
	defer srv.Close()
	for _, sc := range []string{"concurrent-duplicates", "dropped-response", "payload-mismatch"} {
		o := l.against(t, srv.URL, "--scenario", sc)
		if o.code == exitPass {
			t.Errorf("%s: an echo server passed:\n%s", sc, o.stdout)
		}
	}
}

// TestSameSeedTwiceAgainstOneLedger: keys are fresh per run, so a re-run
// with the same seed against the same (persistent) ledger proves as much.
func TestSameSeedTwiceAgainstOneLedger(t *testing.T) {
	t.Parallel()
	p := startPaymentd(t, "pg-tx")
	for run := 1; run <= 2; run++ {
		o := runAgainst(t, p, "--scenario", "concurrent-duplicates", "--seed", "3")
		if o.code != exitPass {
			t.Fatalf("run %d with seed 3: exit %d\n%s\n%s", run, o.code, o.stdout, o.stderr)
		}
	}
}

// TestUnreachableLedgerIsAnEnvironmentError: on Postgres and on MySQL
// (the URL's scheme picks the engine), with the password never shown.
func TestUnreachableLedgerIsAnEnvironmentError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	for _, ledger := range []string{"postgres://x:s3cret@" + closedPort(t) + "/x", "mysql://x:s3cret@" + closedPort(t) + "/x"} {
		o := cliEnv(t, nil, "run", "--target-url", srv.URL, "--ledger-url", ledger, "--ledger-query", "SELECT 1", "--scenario", "missing-key")
		msg := strings.TrimSpace(o.stderr)
		if o.code != exitEnv || !strings.Contains(msg, "cannot connect") || strings.Count(msg, "connection refused") != 1 || strings.Contains(msg, "\n") ||
			strings.Contains(o.stdout+o.stderr, "s3cret") {
			t.Errorf("%s: exit %d, stderr %q; want exit 3 and one line saying once why it cannot connect, without the password", ledger, o.code, o.stderr)
		}
	}
}

// lateService answers every charge at once and writes its ledger row
// later, some rows well after the last answer: no idempotency at all, so
// every duplicate is a double charge, most of them late.
type lateService struct {
	ledger userLedger
	n      atomic.Int64
	wg     sync.WaitGroup
	delay  func(n int64) time.Duration
}

func (s *lateService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Account string `json:"account"`
		Amount  int64  `json:"amount"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := s.n.Add(1)
	key, attempt := r.Header.Get("Idempotency-Key"), r.Header.Get("X-Idemchaos-Attempt")
	s.wg.Add(1)
	time.AfterFunc(s.delay(n), func() {
		defer s.wg.Done()
		_, _ = s.ledger.pool.Exec(context.Background(),
			`INSERT INTO charges (idempotency_key, account, amount, attempt_id) VALUES (NULLIF($1, ''), $2, $3, $4)`,
			key, body.Account, body.Amount, attempt)
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":"late_%d","account":%q,"amount":%d}`, n, body.Account, body.Amount)
}

// TestLateChargesAreWaitedFor: the ledger is read until it stops changing,
// so every late double charge is in the ground truth; and a ledger still
// moving at the --settle bound makes the run inconclusive, never a pass.
func TestLateChargesAreWaitedFor(t *testing.T) {
	t.Parallel()
	l := newUserLedger(t)
	s := &lateService{ledger: l, delay: func(n int64) time.Duration { return 50*time.Millisecond + time.Duration(n%10)*60*time.Millisecond }}
	srv := httptest.NewServer(s)
	defer srv.Close()
	o := l.against(t, srv.URL, "--scenario", "concurrent-duplicates", "--json", "-")
	s.wg.Wait()
	var doc struct {
		Results []struct {
			Verdict   string         `json:"verdict"`
			Anomalies map[string]int `json:"anomalies"`
			Power     struct {
				Rounds int `json:"rounds"`
			} `json:"power"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil || len(doc.Results) != 1 {
		t.Fatalf("exit %d, no JSON (%v):\n%s\n%s", o.code, err, o.stdout, o.stderr)
	}
	// 10 trials of 6 duplicates a round and their replay probes, every one
	// charged; the ledger also holds the charges that measured the service
	// first.
	r := doc.Results[0]
	if keys := 10 * r.Power.Rounds; o.code != exitViolated || r.Power.Rounds < 1 || r.Anomalies["double_charge"] != l.rows(t)-scenarios.CalibrationCharges-keys {
		t.Fatalf("exit %d, %d double charges counted, the final ledger holds %d rows for %d keys (%d rounds) and %d measuring charges", o.code,
			r.Anomalies["double_charge"], l.rows(t), keys, r.Power.Rounds, scenarios.CalibrationCharges)
	}
	s.n.Store(0)
	o = l.against(t, srv.URL, "--scenario", "concurrent-duplicates", "--settle", "200ms")
	s.wg.Wait()
	if o.code != exitInconclusive || !strings.Contains(o.stdout, "the ledger was still changing") {
		t.Fatalf("exit %d; want 4 with the ledger still changing at the bound\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestKeylessChargesAreReadBack: a service allowed to take POSTs without a
// key (stripe) charges them; the ledger's attempt ids give those charges
// back, so a correct service passes missing-key and no ack is taken for
// lost; without attempt ids the keyless acks are not judged against the
// ledger at all, rather than called lost. The same run again finds the
// first run's keyless rows under the same attempt ids: another run's, left
// out.
func TestKeylessChargesAreReadBack(t *testing.T) {
	p := startPaymentd(t, "pg-tx", "--profile", "stripe")
	for _, query := range []string{p.ledgerQuery, p.ledgerQuery, "SELECT idempotency_key, account, amount, id FROM charge_rows"} {
		o := cliEnv(t, nil, "run", "--target-url", p.url, "--ledger-url", p.ledgerURL, "--ledger-query", query,
			"--profile", "stripe", "--scenario", "missing-key")
		if o.code != exitPass || strings.Contains(o.stdout, "lost_ack") {
			t.Errorf("%s: exit %d; want a pass with no lost ack\n%s\n%s", query, o.code, o.stdout, o.stderr)
		}
	}
}
