package strategy

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
	"github.com/jackc/pgx/v5"
)

// pg-tx and the designs that are pg-tx with one thing changed.
func init() {
	bind(design.PgTx, func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true} })
	bind(design.PgNoFingerprint, func(d Deps) Strategy { return pgTx{deps: d} })
	bind(design.PgBlockingClaim, func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true, blockingClaim: true} })
	bind(design.PgSuccessOnly, func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true, successOnly: true} })
	bind(design.PgAsyncCommit, func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true, asyncCommit: true} })
}

// pgTx is the reference design: one Postgres transaction takes a non-blocking
// claim on the key (its advisory lock), finds no key row, charges and inserts
// the key row with the response, so the key and the money commit or roll
// back together. A duplicate in flight finds the lock taken (409). Without
// the fingerprint (pg-nofingerprint) a retry with another payload is
// answered with the first payload's response.
//
// With blockingClaim (pg-blocking-claim) there is no lock before the key row:
// the claim is the INSERT ... ON CONFLICT DO NOTHING itself, and Postgres
// makes a second INSERT of a key that an open transaction inserted wait for
// that transaction. A duplicate sent while the first request is in flight is
// held until it commits, then replayed, instead of getting 409 at once.
//
// With successOnly (pg-success-only) only a 2xx is stored with the key, a
// common middleware default: any other answer of the work, a declined
// charge (402) among them, deletes the key row in the same transaction,
// releasing the key. A retry of a declined key is then decided again, and
// charges once the account is funded.
//
// With asyncCommit (pg-async-commit) the transaction runs with
// SET LOCAL synchronous_commit = off, a common tuning for write-heavy
// tables: COMMIT returns before its WAL is written, and a crash of the
// server in the moment after loses the key row and the charge, both
// already answered 201 (PostgreSQL docs, "Asynchronous Commit").
type pgTx struct {
	deps          Deps
	fingerprint   bool
	blockingClaim bool
	successOnly   bool
	asyncCommit   bool
}

// errBusy aborts the transaction of a duplicate that found the key locked.
var errBusy = errors.New("key locked by an in-flight request")

func (s pgTx) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	work := s.work
	if s.blockingClaim {
		work = s.workBlocking
	}
	var prelude []string
	if s.asyncCommit { // with BEGIN, in the same round trip
		prelude = append(prelude, `SET LOCAL synchronous_commit = off`)
	}
	resp, err := inTx(ctx, s.deps, r, func(tx *txn) (Response, error) { return work(ctx, tx, r) }, prelude...)
	switch {
	case errors.Is(err, errBusy):
		return inFlight(s.deps.Profile)
	case err != nil:
		return unavailable(err)
	}
	return resp
}

// work runs inside the transaction. The advisory lock never waits: a second
// INSERT ... ON CONFLICT on a key an open transaction inserted would block.
// The lock, the read of the key row and, when the key is free, the charge
// and the key row with its 201 travel in one round trip with BEGIN; the
// COMMIT is the second (with the key row of a refusal, when it is stored).
func (s pgTx) work(ctx context.Context, tx *txn, r Request) (Response, error) {
	return lockAndCharge(ctx, s.deps, tx, r, lockRules{fingerprint: s.fingerprint, successOnly: s.successOnly, claimPoint: true})
}

// lockRules are the choices of a transaction under the key's lock: check the
// fingerprint, store only a 2xx, and pass the after-claim failpoint (a
// strategy that claimed elsewhere already passed it).
type lockRules struct{ fingerprint, successOnly, claimPoint bool }

// lockAndCharge is pg-tx's transaction (and redis-pg-guard's): errBusy when
// another transaction holds the key's lock, the stored answer when the key
// has a row, else the charge with the key row and its 201 (one statement),
// or the refusal and, unless the rules store only a 2xx, its key row.
func lockAndCharge(ctx context.Context, d Deps, tx *txn, r Request, rules lockRules) (Response, error) {
	c, err := claimAndCharge(ctx, tx, r, underLock)
	if err != nil {
		return Response{}, err
	}
	if !c.locked {
		return Response{}, errBusy
	}
	if rules.claimPoint {
		d.at(ctx, api.AfterClaim, r)
	}
	if c.found {
		return answerStored(d, c.row, r, rules.fingerprint), nil
	}
	d.at(ctx, api.AfterCheck, r)
	resp, err := c.answer(ctx, tx, r)
	if err != nil || rules.successOnly && resp.Status/100 != 2 {
		return resp, err // pg-success-only: no key row, the key is free again
	}
	d.at(ctx, api.BeforeStoreResponse, r)
	if c.stored == nil { // a refusal: the charging statement stored nothing
		tx.atCommit(sqlInsertKey, r.Key, r.Fingerprint, resp.Status, resp.Body)
	}
	return resp, nil
}

// workBlocking runs inside the transaction: the key row's INSERT is the claim
// and the check (both failpoints pass right after it), and it waits for any
// open transaction that inserted the key.
func (s pgTx) workBlocking(ctx context.Context, tx *txn, r Request) (Response, error) {
	return insertAndCharge(ctx, s.deps, tx, r, s.fingerprint, api.AfterClaim, api.AfterCheck)
}

// insertAndCharge claims the key by inserting its row in progress (waiting
// for an open transaction that inserted it) and charges in the same round
// trip when it inserted, storing the 201 in the row; the points fire after
// that round trip. When the key already has a row (committed by an earlier
// request, or waited for while that request's transaction was open) it
// answers from the row. A refusal is stored in the row with the commit.
func insertAndCharge(ctx context.Context, d Deps, tx *txn, r Request, checkFingerprint bool, points ...api.Point) (Response, error) {
	c, err := claimAndCharge(ctx, tx, r, byInsert)
	if err != nil {
		return Response{}, err
	}
	if !c.inserted {
		return answerFound(d, c, r, checkFingerprint), nil
	}
	for _, p := range points {
		d.at(ctx, p, r)
	}
	resp, err := c.answer(ctx, tx, r)
	if err != nil {
		return Response{}, err
	}
	d.at(ctx, api.BeforeStoreResponse, r)
	if c.stored == nil { // a refusal: the charging statement stored nothing
		storeKeyResponse(tx, r.Key, resp)
	}
	return resp, nil
}

// chargeAndStore charges and stores the response with the key row inserted
// before, all on tx (the response is written with the commit).
func chargeAndStore(ctx context.Context, d Deps, tx *txn, r Request) (Response, error) {
	resp, err := charge(ctx, tx, r)
	if err != nil {
		return Response{}, err
	}
	d.at(ctx, api.BeforeStoreResponse, r)
	storeKeyResponse(tx, r.Key, resp)
	return resp, nil
}

type keyRow struct {
	fingerprint string
	resp        Response
}

// inProgress reports a key row whose work has not completed.
func (k keyRow) inProgress() bool { return k.resp.Status == 0 }

// storeKeyResponse queues the response's write to the key row with the commit.
func storeKeyResponse(tx *txn, key string, resp Response) {
	tx.atCommit(sqlStoreResponse, key, resp.Status, resp.Body)
}

const sqlStoreResponse = `UPDATE idempotency_keys SET response_status = $2, response_body = $3 WHERE key = $1`

// rowReader is a transaction or a pool.
type rowReader interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// loadKeyRow reads the key's row; mode, when given, is how pgx runs the
// query (pgx.QueryExecModeExec: one round trip, never a prepare first).
func loadKeyRow(ctx context.Context, q rowReader, key string, mode ...any) (keyRow, bool, error) {
	var k keyRow
	err := q.QueryRow(ctx, `SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE key = $1`,
		append(mode, key)...).Scan(&k.fingerprint, &k.resp.Status, &k.resp.Body)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, false, nil
	}
	if err != nil {
		return k, false, fmt.Errorf("read key: %w", err)
	}
	return k, true, nil
}

// answerStored answers from a key row: 422 on another payload (when the
// fingerprint is checked), 409 while in progress, else the stored response.
func answerStored(d Deps, k keyRow, r Request, checkFingerprint bool) Response {
	switch {
	case checkFingerprint && k.fingerprint != r.Fingerprint:
		return mismatch(d.Profile)
	case k.inProgress():
		return inFlight(d.Profile)
	}
	return replay(k.resp)
}
