package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// The tests of this file are replay stability against a user's service:
// every replay must repeat the key's first answer, and carry the
// profile's replay header, also when the client saw a single 2xx for the
// key (a dropped response: the client sees only the retry's replay), which
// the replay probes after the traffic show.

// replayService is an idempotent payment service on the user's ledger: one
// process, its keys in memory (claimed under a lock, 409 while in flight,
// the profile's status for another payload, released when the charge
// fails), each charge a ledger row naming its id and the attempt that made
// it. Its flaws are options: restamp renders every replay anew, with a
// fresh "created" timestamp (as a service that rebuilds its answers from
// the charge does); header marks replays with Idempotent-Replayed: true.
type replayService struct {
	ledger  userLedger
	restamp bool
	header  bool
	stripe  bool // 400 for another payload, not 422

	mu   sync.Mutex
	keys map[string]*replayEntry
}

type replayEntry struct {
	account string
	amount  int64
	done    bool
	id      int64
	answer  []byte
}

// userChargeQuery reads the user's ledger with the charge ids its answers carry.
const userChargeQuery = "SELECT idempotency_key, account, amount, id, attempt_id FROM charges"

func (s *replayService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Account string `json:"account"`
		Amount  int64  `json:"amount"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"code":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	key, attempt := r.Header.Get("Idempotency-Key"), r.Header.Get("X-Idemchaos-Attempt")
	if key == "" {
		http.Error(w, `{"code":"idempotency_key_missing"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if e, ok := s.keys[key]; ok {
		s.mu.Unlock()
		s.replay(w, e, body.Account, body.Amount)
		return
	}
	e := &replayEntry{account: body.Account, amount: body.Amount}
	s.keys[key] = e
	s.mu.Unlock()
	var id int64
	// the work outlives the client's connection, as a payment server's must
	err := s.ledger.pool.QueryRow(context.WithoutCancel(r.Context()), `INSERT INTO charges (idempotency_key, account, amount, attempt_id)
		VALUES ($1, $2, $3, $4) RETURNING id`, key, body.Account, body.Amount, attempt).Scan(&id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		delete(s.keys, key)
		http.Error(w, `{"code":"store_unavailable"}`, http.StatusServiceUnavailable)
		return
	}
	e.done, e.id = true, id
	e.answer = s.render(e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(e.answer)
}

// render writes the answer of a charge, stamped with the time of writing.
func (s *replayService) render(e *replayEntry) []byte {
	return fmt.Appendf(nil, `{"id":"%d","account":%q,"amount":%d,"created":%d}`, e.id, e.account, e.amount, time.Now().UnixNano())
}

func (s *replayService) replay(w http.ResponseWriter, e *replayEntry, account string, amount int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case e.account != account || e.amount != amount:
		status := http.StatusUnprocessableEntity
		if s.stripe {
			status = http.StatusBadRequest
		}
		http.Error(w, `{"code":"idempotency_key_reused"}`, status)
		return
	case !e.done:
		http.Error(w, `{"code":"idempotency_key_in_use"}`, http.StatusConflict)
		return
	}
	answer := e.answer
	if s.restamp {
		answer = s.render(e)
	}
	w.Header().Set("Content-Type", "application/json")
	if s.header {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(answer)
}

// replayRun is one run's saved document and history.
type replayRun struct {
	code    int
	out     outcome
	results []struct {
		Verdict   string         `json:"verdict"`
		Anomalies map[string]int `json:"anomalies"`
		Repro     string         `json:"repro"`
		Findings  []struct {
			Anomaly  string   `json:"anomaly"`
			Key      string   `json:"key"`
			Attempts []string `json:"attempts"`
			Detail   string   `json:"detail"`
		} `json:"findings"`
	}
	history history.History
}

// runReplay runs dropped-response against s with args and reads back what
// the run saved.
func runReplay(t *testing.T, s *replayService, args ...string) replayRun {
	t.Helper()
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	out, doc := filepath.Join(dir, "run"), filepath.Join(dir, "results.json")
	full := append([]string{"run", "--target-url", srv.URL, "--ledger-url", s.ledger.dsn, "--ledger-query", userChargeQuery,
		"--scenario", "dropped-response", "--out", out, "--json", doc}, args...)
	r := replayRun{out: cliEnv(t, nil, full...)}
	r.code = r.out.code
	var d struct {
		Results json.RawMessage `json:"results"`
	}
	b, err := os.ReadFile(doc)
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err == nil {
		err = json.Unmarshal(d.Results, &r.results)
	}
	if err != nil || len(r.results) != 1 {
		t.Fatalf("exit %d, no document with one result (%v)\n%s\n%s", r.code, err, r.out.stdout, r.out.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "cells", "*", "dropped-response", "seed-*", "history.jsonl"))
	if len(files) != 1 {
		t.Fatalf("history files %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r.history, err = history.ReadJSONL(f); err != nil {
		t.Fatal(err)
	}
	return r
}

// oneAckPerKey fails unless the client saw exactly one 2xx for every key
// in the main traffic (the replay probes aside), and returns the replay
// probes' ids.
func oneAckPerKey(t *testing.T, h history.History) map[string]bool {
	t.Helper()
	acks, probes := map[string]int{}, map[string]bool{}
	for _, a := range h.Attempts {
		switch {
		case a.ReplayProbe:
			probes[a.ID] = true
		case a.Key != "" && a.Outcome == history.Acked:
			acks[a.Key]++
		}
	}
	if len(acks) == 0 || len(probes) == 0 {
		t.Fatalf("%d keys acked, %d replay probes", len(acks), len(probes))
	}
	for k, n := range acks {
		if n != 1 {
			t.Fatalf("key %s: the client saw %d 2xx; the test wants one per key", k, n)
		}
	}
	return probes
}

// TestRerenderedReplayFailsEvenWithOneAckPerKey: a service that renders
// every replay anew passes the old check (its client sees a single 2xx per
// key after a dropped response) but not the replay probes; told to compare
// as JSON without the field it stamps, it passes.
func TestRerenderedReplayFailsEvenWithOneAckPerKey(t *testing.T) {
	s := &replayService{ledger: newUserLedger(t), restamp: true, header: true, keys: map[string]*replayEntry{}}
	r := runReplay(t, s)
	res := r.results[0]
	if r.code != exitViolated || res.Anomalies["replay_mismatch"] == 0 {
		t.Fatalf("exit %d, anomalies %v; want exit 1 with replay_mismatch\n%s", r.code, res.Anomalies, r.out.stdout)
	}
	for name, n := range res.Anomalies {
		if name != "replay_mismatch" && n > 0 {
			t.Errorf("anomaly %s counted %d; want replay_mismatch alone", name, n)
		}
	}
	probes := oneAckPerKey(t, r.history)
	for _, f := range res.Findings {
		if !probes[f.Attempts[0]] || !strings.Contains(f.Detail, "a replay probe") ||
			!strings.Contains(f.Detail, "as JSON, field created differs") {
			t.Errorf("finding %+v: want a replay probe whose body differs in field created", f)
		}
	}
	if !strings.Contains(r.out.stdout, "replay_mismatch: key ") {
		t.Errorf("no evidence in the report:\n%s", r.out.stdout)
	}

	s = &replayService{ledger: s.ledger, restamp: true, header: true, keys: map[string]*replayEntry{}}
	r = runReplay(t, s, "--replay-ignore", "created")
	if res := r.results[0]; r.code != exitPass || !strings.HasSuffix(res.Repro, "--replay-ignore created") {
		t.Fatalf("as JSON ignoring created: exit %d, %v, repro %q\n%s\n%s", r.code, res.Anomalies, res.Repro, r.out.stdout, r.out.stderr)
	}
	oneAckPerKey(t, r.history)
}

// TestStripeReplayHeaderOnEveryReplay: under stripe a replay must say it
// is one, also the lone 2xx the client saw after a dropped response,
// whose charge the ledger says the dropped try made.
func TestStripeReplayHeaderOnEveryReplay(t *testing.T) {
	l := newUserLedger(t)
	s := &replayService{ledger: l, stripe: true, keys: map[string]*replayEntry{}}
	r := runReplay(t, s, "--profile", "stripe")
	res := r.results[0]
	if r.code != exitViolated || res.Anomalies["status_contract"] == 0 || res.Anomalies["replay_mismatch"] > 0 {
		t.Fatalf("exit %d, anomalies %v; want exit 1 with status_contract\n%s", r.code, res.Anomalies, r.out.stdout)
	}
	probes := oneAckPerKey(t, r.history)
	lone := 0
	for _, f := range res.Findings {
		if f.Anomaly == "status_contract" && !probes[f.Attempts[0]] && strings.Contains(f.Detail, "which the ledger says attempt") &&
			strings.Contains(f.Detail, "requires on every replay") {
			lone++
		}
	}
	if lone == 0 {
		t.Errorf("no finding on a key's one 2xx of the traffic:\n%s", r.out.stdout)
	}

	s = &replayService{ledger: l, stripe: true, header: true, keys: map[string]*replayEntry{}}
	if r := runReplay(t, s, "--profile", "stripe"); r.code != exitPass {
		t.Fatalf("with the header: exit %d, %v\n%s", r.code, r.results[0].Anomalies, r.out.stdout)
	}
}

// TestPaymentdPgTxReplaysStably: the reference design passes with every
// replay probed, under both profiles.
func TestPaymentdPgTxReplaysStably(t *testing.T) {
	for _, profile := range []string{"ietf", "stripe"} {
		p := startPaymentd(t, "pg-tx", "--profile", profile)
		if o := runAgainst(t, p, "--scenario", "dropped-response", "--profile", profile, "--seed", "2"); o.code != exitPass {
			t.Errorf("dropped-response under %s: exit %d\n%s\n%s", profile, o.code, o.stdout, o.stderr)
		}
	}
}
