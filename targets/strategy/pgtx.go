package strategy

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/jackc/pgx/v5"
)

// pgTx is the reference design: one Postgres transaction takes a non-blocking
// claim on the key, inserts the key row, charges and stores the response, so
// the key and the money commit or roll back together. Without the fingerprint
// (pg-nofingerprint) a retry with another payload is answered with the first
// payload's response.
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
	resp, err := inTx(ctx, s.deps, r, func(tx pgx.Tx) (Response, error) {
		if s.asyncCommit {
			if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
				return Response{}, fmt.Errorf("synchronous_commit off: %w", err)
			}
		}
		return work(ctx, tx, r)
	})
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
func (s pgTx) work(ctx context.Context, tx pgx.Tx, r Request) (Response, error) {
	var locked bool
	err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))`, r.Key).Scan(&locked)
	if err != nil {
		return Response{}, fmt.Errorf("claim key: %w", err)
	}
	if !locked {
		return Response{}, errBusy
	}
	s.deps.at(ctx, api.AfterClaim, r)
	stored, found, err := loadKeyRow(ctx, tx, r.Key)
	if err != nil {
		return Response{}, err
	}
	if found {
		return answerStored(s.deps, stored, r, s.fingerprint), nil
	}
	s.deps.at(ctx, api.AfterCheck, r)
	if _, err := insertKeyRow(ctx, tx, r); err != nil {
		return Response{}, err
	}
	if s.successOnly {
		return chargeAndStoreSuccess(ctx, s.deps, tx, r)
	}
	return chargeAndStore(ctx, s.deps, tx, r)
}

// workBlocking runs inside the transaction: the key row's INSERT is the claim
// and the check (both failpoints pass right after it), and it waits for any
// open transaction that inserted the key.
func (s pgTx) workBlocking(ctx context.Context, tx pgx.Tx, r Request) (Response, error) {
	resp, claimed, err := claimByInsert(ctx, s.deps, tx, r, s.fingerprint)
	if err != nil || !claimed {
		return resp, err
	}
	s.deps.at(ctx, api.AfterClaim, r)
	s.deps.at(ctx, api.AfterCheck, r)
	return chargeAndStore(ctx, s.deps, tx, r)
}

// claimByInsert inserts the key row in progress. When the key already has a
// row (committed by an earlier request, or waited for while that request's
// transaction was open) it returns the stored answer and claimed false.
func claimByInsert(ctx context.Context, d Deps, tx pgx.Tx, r Request, checkFingerprint bool) (resp Response, claimed bool, err error) {
	inserted, err := insertKeyRow(ctx, tx, r)
	if err != nil || inserted {
		return Response{}, inserted, err
	}
	stored, _, err := loadKeyRow(ctx, tx, r.Key)
	return answerStored(d, stored, r, checkFingerprint), false, err
}

// chargeAndStore charges and stores the response with the key row inserted
// before, all on tx.
func chargeAndStore(ctx context.Context, d Deps, tx pgx.Tx, r Request) (Response, error) {
	resp, err := charge(ctx, tx, r)
	if err != nil {
		return Response{}, err
	}
	d.at(ctx, api.BeforeStoreResponse, r)
	return resp, storeKeyResponse(ctx, tx, r.Key, resp)
}

// chargeAndStoreSuccess charges on tx and stores the response with the
// key row only when it is a 2xx; any other answer deletes the key row.
func chargeAndStoreSuccess(ctx context.Context, d Deps, tx pgx.Tx, r Request) (Response, error) {
	resp, err := charge(ctx, tx, r)
	if err != nil {
		return Response{}, err
	}
	if resp.Status/100 != 2 {
		_, err := tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE key = $1`, r.Key)
		if err != nil {
			return Response{}, fmt.Errorf("release key: %w", err)
		}
		return resp, nil
	}
	d.at(ctx, api.BeforeStoreResponse, r)
	return resp, storeKeyResponse(ctx, tx, r.Key, resp)
}

type keyRow struct {
	fingerprint string
	resp        Response
}

// inProgress reports a key row whose work has not completed.
func (k keyRow) inProgress() bool { return k.resp.Status == 0 }

// insertKeyRow inserts the key row in progress; inserted is false when the
// key already had one.
func insertKeyRow(ctx context.Context, tx pgx.Tx, r Request) (inserted bool, err error) {
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		VALUES ($1, $2, 0, '') ON CONFLICT DO NOTHING`, r.Key, r.Fingerprint)
	if err != nil {
		return false, fmt.Errorf("insert key: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

func storeKeyResponse(ctx context.Context, tx pgx.Tx, key string, resp Response) error {
	_, err := tx.Exec(ctx, `UPDATE idempotency_keys SET response_status = $2, response_body = $3 WHERE key = $1`,
		key, resp.Status, resp.Body)
	if err != nil {
		return fmt.Errorf("store response: %w", err)
	}
	return nil
}

// rowReader is a transaction or a pool.
type rowReader interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func loadKeyRow(ctx context.Context, q rowReader, key string) (keyRow, bool, error) {
	var k keyRow
	err := q.QueryRow(ctx, `SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE key = $1`,
		key).Scan(&k.fingerprint, &k.resp.Status, &k.resp.Body)
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
