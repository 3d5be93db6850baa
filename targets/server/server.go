// Package server serves the payment API over HTTP for one replica: it parses
// and validates requests, hands them to a strategy, and logs every attempt it
// sees (with the harness's attempt id) so that hidden re-sends cannot escape
// the history.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// maxBody bounds a request body.
const maxBody = 64 << 10

// handlerTimeout bounds the work of one request. The work is detached from
// the client's connection: a payment server finishes what it started even if
// the client hangs up, which is exactly what makes a lost response dangerous.
const handlerTimeout = 15 * time.Second

// Entry is one attempt as the server saw it.
type Entry struct {
	AttemptID string
	Key       string
	Replica   int
	Start     time.Duration
	End       time.Duration
	// Claim is when the strategy's claim round trip ran (both zero: it
	// marks none) and ClaimWaits whether it may wait on another request
	// (strategy.Claimed); Handled is when the strategy answered, before
	// the answer was written.
	ClaimStart, ClaimEnd time.Duration
	ClaimWaits           bool
	Handled              time.Duration
	Status               int
	ChargeID             string
	Replayed             bool
}

// Log collects entries from concurrent handlers.
type Log struct {
	mu      sync.Mutex
	entries []Entry
}

func (l *Log) add(e Entry) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.entries = append(l.entries, e)
	l.mu.Unlock()
}

// Entries returns a copy of what was logged so far.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Entry(nil), l.entries...)
}

// Config wires one replica.
type Config struct {
	Replica  int
	Strategy strategy.Strategy
	Pool     *pgxpool.Pool // for GET /v1/accounts
	// Accounts, if set, reads and credits the accounts instead of Pool: a
	// ledger on another store (InnoDB).
	Accounts Accounts
	// Since returns the time since the run's start; nil uses the server's start.
	Since func() time.Duration
	Log   *Log // nil: not logged (a long-running server keeps no history)
	// Failpoints, if set, is told when each request's work is over, so that
	// faults fired during it can heal.
	Failpoints *failpoint.Set
}

// Accounts reads and credits a ledger's accounts.
type Accounts interface {
	Balance(ctx context.Context, id string) (api.Account, error)
	TopUp(ctx context.Context, id string, amount int64) (api.Account, error)
}

// pgAccounts are the accounts of the Postgres ledger on a pool.
type pgAccounts struct{ pool *pgxpool.Pool }

func (a pgAccounts) Balance(ctx context.Context, id string) (api.Account, error) {
	return ledger.Balance(ctx, a.pool, id)
}

func (a pgAccounts) TopUp(ctx context.Context, id string, amount int64) (api.Account, error) {
	return ledger.TopUp(ctx, a.pool, id, amount)
}

// New returns the replica's handler.
func New(cfg Config) http.Handler {
	if cfg.Since == nil {
		t0 := time.Now()
		cfg.Since = func() time.Duration { return time.Since(t0) }
	}
	if cfg.Accounts == nil {
		cfg.Accounts = pgAccounts{cfg.Pool}
	}
	h := &handler{cfg: cfg}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+api.PathCharges, h.charge)
	mux.HandleFunc("GET "+api.PathAccounts+"{id}", h.account)
	mux.HandleFunc("POST "+api.PathAccounts+"{id}"+api.TopUpSuffix, h.topUp)
	return mux
}

type handler struct{ cfg Config }

func (h *handler) charge(w http.ResponseWriter, req *http.Request) {
	start := h.cfg.Since()
	r, bad := h.parse(req)
	resp := bad
	var claim strategy.Claimed
	if bad.Status == 0 {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), handlerTimeout)
		resp = h.cfg.Strategy.Handle(strategy.WithClaimed(ctx, &claim), r)
		cancel()
		h.cfg.Failpoints.End(r.AttemptID)
	}
	handled := h.cfg.Since()
	h.write(w, resp)
	e := Entry{AttemptID: req.Header.Get(api.HeaderAttempt), Key: r.Key, Replica: h.cfg.Replica,
		Start: start, End: h.cfg.Since(), Handled: handled, Status: resp.Status, ChargeID: chargeID(resp), Replayed: resp.Replayed}
	if !claim.Start.IsZero() {
		now := time.Now()
		e.ClaimStart, e.ClaimEnd, e.ClaimWaits = e.End-now.Sub(claim.Start), e.End-now.Sub(claim.End), claim.Waits
	}
	h.cfg.Log.add(e)
}

// parse reads the request; a non-zero Status in the second result is a 400.
func (h *handler) parse(req *http.Request) (strategy.Request, strategy.Response) {
	r := strategy.Request{Key: strings.TrimSpace(req.Header.Get(api.HeaderKey)),
		AttemptID: req.Header.Get(api.HeaderAttempt), Replica: h.cfg.Replica}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		return r, strategy.Failure(http.StatusBadRequest, api.CodeBadRequest, "unreadable or oversized body")
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r.Body); err != nil {
		return r, strategy.Failure(http.StatusBadRequest, api.CodeBadRequest, "body: "+err.Error())
	}
	if err := r.Body.Validate(); err != nil {
		return r, strategy.Failure(http.StatusBadRequest, api.CodeBadRequest, err.Error())
	}
	r.Fingerprint = r.Body.Fingerprint()
	return r, strategy.Response{}
}

func (h *handler) write(w http.ResponseWriter, resp strategy.Response) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(api.HeaderReplica, strconv.Itoa(h.cfg.Replica))
	if resp.Replayed {
		w.Header().Set(api.HeaderReplayed, "true")
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

func (h *handler) account(w http.ResponseWriter, req *http.Request) {
	a, err := h.cfg.Accounts.Balance(req.Context(), req.PathValue("id"))
	h.writeAccount(w, a, err)
}

// writeAccount answers an account read or credited: 200 with it, 404 for
// an unknown account, 503 when the ledger failed.
func (h *handler) writeAccount(w http.ResponseWriter, a api.Account, err error) {
	switch {
	case errors.Is(err, ledger.ErrUnknownAccount):
		h.write(w, strategy.Failure(http.StatusNotFound, api.CodeNotFound, "unknown account"))
	case err != nil:
		h.write(w, strategy.Failure(http.StatusServiceUnavailable, api.CodeStoreUnavailable, err.Error()))
	default:
		h.write(w, strategy.JSON(http.StatusOK, a))
	}
}

// topUp pays money into an account (POST /v1/accounts/{id}/top-ups): 200
// with the account's new balance, 400 for a bad body, 404 for an unknown
// account. It is not idempotent: each request credits once.
func (h *handler) topUp(w http.ResponseWriter, req *http.Request) {
	var t api.TopUp
	dec := json.NewDecoder(io.LimitReader(req.Body, maxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&t)
	if err == nil {
		err = t.Validate()
	}
	if err != nil {
		h.write(w, strategy.Failure(http.StatusBadRequest, api.CodeBadRequest, "body: "+err.Error()))
		return
	}
	a, err := h.cfg.Accounts.TopUp(req.Context(), req.PathValue("id"), t.Amount)
	h.writeAccount(w, a, err)
}

// chargeID extracts the charge id of a 2xx answer.
func chargeID(resp strategy.Response) string {
	if resp.Status/100 != 2 {
		return ""
	}
	var c api.Charge
	_ = json.Unmarshal(resp.Body, &c)
	return c.ID
}
