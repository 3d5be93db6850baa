// Package strategy holds the idempotency layers under test: each Strategy
// decides, for one POST /v1/charges, whether to run the charge, replay a stored
// response or refuse. The flawed ones are flawed on purpose, as teams really
// ship them; the correct ones must survive every scenario.
//
// A strategy owns its transaction and lock boundaries (as pgx.BeginTxFunc
// does) and calls back into the ledger for the money movement.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package strategy

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// Request is one charge attempt as the server parsed it.
type Request struct {
	Key         string // empty: the client sent no key
	AttemptID   string
	Body        api.ChargeRequest
	Fingerprint string // api.ChargeRequest.Fingerprint of Body
	Replica     int
}

// Response is what the server answers, and what a strategy may store.
type Response struct {
	Status   int    `json:"status"`
	Body     []byte `json:"body"`
	Replayed bool   `json:"-"`
	charged  bool   // a ledger row was written for this response
}

// Strategy is an idempotency layer.
type Strategy interface {
	// Handle answers one request; it never returns an error: failures are 5xx.
	Handle(ctx context.Context, r Request) Response
}

// Deps are the stores a strategy may use. Pool is set for every strategy
// but those on InnoDB (MySQL instead); Redis is set for
// strategies that declare it.
type Deps struct {
	Pool *pgxpool.Pool
	// Standby is a read-only pool on a hot standby of Pool's server, for
	// the strategies that read there; nil: they read Pool.
	Standby *pgxpool.Pool
	Redis   *redis.Client
	// MySQL is the InnoDB ledger's pool (targets/ledger/innodb.Open), for
	// the strategies on InnoDB (targets/strategy/innodb); nil for the rest.
	MySQL   *sql.DB
	Prefix  string // Redis key prefix, isolating one run from another
	Profile api.Profile
	// ClaimTTL bounds an in-flight claim in Redis (default 5s).
	ClaimTTL time.Duration
	// KeyTTL is how long a completed key is kept (default 24h).
	KeyTTL time.Duration
	// Failpoints, if set, is evaluated at every named point a request passes.
	Failpoints *failpoint.Set
}

// at evaluates failpoint p for request r.
func (d Deps) at(ctx context.Context, p api.Point, r Request) {
	d.Failpoints.Eval(ctx, p, r.Key, r.AttemptID, r.Replica)
}

func (d Deps) withDefaults() Deps {
	if d.ClaimTTL <= 0 {
		d.ClaimTTL = 5 * time.Second
	}
	if d.KeyTTL <= 0 {
		d.KeyTTL = 24 * time.Hour
	}
	return d
}

// charge runs the business logic on q and turns its outcome into a response:
// 201 with the charge, 402/404 for business refusals. An error means the
// outcome is a failure (5xx) and nothing must be stored.
func charge(ctx context.Context, q ledger.Querier, r Request) (Response, error) {
	c, err := ledger.Charge(ctx, q, debitOf(r))
	return chargeAnswer(c, err, r)
}

func debitOf(r Request) ledger.Debit {
	return ledger.Debit{Request: r.Body, Key: r.Key, AttemptID: r.AttemptID, Replica: r.Replica}
}

// chargeAnswer turns a ledger outcome into a response, as charge does.
func chargeAnswer(c api.Charge, err error, r Request) (Response, error) {
	switch {
	case errors.Is(err, ledger.ErrInsufficientFunds):
		return Failure(http.StatusPaymentRequired, api.CodeInsufficientFunds, "insufficient funds"), nil
	case errors.Is(err, ledger.ErrUnknownAccount):
		return Failure(http.StatusNotFound, api.CodeNotFound, "unknown account "+r.Body.Account), nil
	case err != nil:
		return Response{}, err
	}
	resp := JSON(http.StatusCreated, c)
	resp.charged = true
	return resp, nil
}

// inTx runs work in one transaction (a txn: BEGIN and prelude go with
// work's first statement, the statements work queued with atCommit with
// the COMMIT). When the work charged, the before-commit and after-commit
// failpoints fire around the commit.
func inTx(ctx context.Context, d Deps, r Request, work func(*txn) (Response, error), prelude ...string) (Response, error) {
	tx, err := beginTxn(ctx, d.Pool, prelude...)
	if err != nil {
		return Response{}, err
	}
	defer tx.release(ctx) // rolls back unless committed
	resp, err := work(tx)
	if err != nil {
		return Response{}, err
	}
	if resp.charged {
		if err := tx.prepareCommit(ctx); err != nil {
			return Response{}, err
		}
		d.at(ctx, api.BeforeCommit, r)
	}
	if err := tx.commit(ctx); err != nil {
		return Response{}, err
	}
	if resp.charged {
		d.at(ctx, api.AfterCommit, r)
	}
	return resp, nil
}

// JSON builds a response with a JSON body.
func JSON(status int, v any) Response {
	b, _ := json.Marshal(v) // only api types are encoded here
	return Response{Status: status, Body: b}
}

// Failure builds an error response.
func Failure(status int, code, msg string) Response {
	return JSON(status, api.Error{Code: code, Message: msg})
}

// unavailable is the answer when a store failed.
func unavailable(err error) Response {
	return Failure(http.StatusServiceUnavailable, api.CodeStoreUnavailable, err.Error())
}

// noKey answers a POST without a key: the profile's refusal, or a plain
// charge without idempotency when the profile allows it.
func noKey(ctx context.Context, d Deps, r Request) Response {
	if d.Profile.MissingKey == 0 {
		return runCharge(ctx, d, r)
	}
	return Failure(d.Profile.MissingKey, api.CodeMissingKey, "the Idempotency-Key header is required")
}

// runCharge charges in its own Postgres transaction; failures become 503.
func runCharge(ctx context.Context, d Deps, r Request) Response {
	resp, err := inTx(ctx, d, r, func(tx *txn) (Response, error) { return charge(ctx, tx, r) })
	if err != nil {
		return unavailable(err)
	}
	return resp
}

func inFlight(p api.Profile) Response {
	return Failure(p.InFlight, api.CodeInFlight, "a request with this key is in flight; retry later")
}

func mismatch(p api.Profile) Response {
	return Failure(p.Mismatch, api.CodeMismatch, "this key was used with another request body")
}

func replay(r Response) Response {
	r.Replayed = true
	return r
}

// cacheable reports whether a response is a final answer worth storing: never a 5xx.
func cacheable(r Response) bool { return r.Status < 500 }
