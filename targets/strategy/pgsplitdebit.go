package strategy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func init() { bind(design.PgSplitDebit, newPgSplitDebit) }

// pgSplitDebit debits the account in a first transaction and writes the
// charge row, the key row and the response in a second, on one connection
// that holds the key's session lock throughout: the wallet's Debit and the
// charges' Record each open a transaction of their own. A failure of the
// second (its link cut before the commit) rolls back the charge row and the
// key, not the money: the balance drifts from the charges, and the retry
// finds no key and debits again.
type pgSplitDebit struct{ deps Deps }

func newPgSplitDebit(d Deps) Strategy { return pgSplitDebit{d} }

// taken is what the first transaction left: a stored answer, or the debit.
type taken struct {
	stored  Response
	found   bool
	balance int64
	refusal error // a business refusal of the debit: nothing was taken
}

func (s pgSplitDebit) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	conn, err := s.deps.Pool.Acquire(ctx)
	if err != nil {
		return unavailable(fmt.Errorf("acquire: %w", err))
	}
	defer conn.Release()
	locked, err := lockSession(ctx, conn, r.Key)
	switch {
	case err != nil:
		return unavailable(err)
	case !locked:
		return inFlight(s.deps.Profile)
	}
	defer unlockSession(ctx, conn, r.Key)
	s.deps.at(ctx, api.AfterClaim, r)
	t, err := s.take(ctx, conn, r)
	switch {
	case err != nil:
		return unavailable(err)
	case t.found:
		return t.stored
	}
	resp, err := s.inConnTx(ctx, conn, r, func(tx pgx.Tx) (Response, error) { return s.record(ctx, tx, r, t) })
	if err != nil {
		return unavailable(err) // the debit stays committed
	}
	return resp
}

// inConnTx runs work in a transaction of its own on conn, the second of
// the request's two; the before-commit and after-commit failpoints fire
// around its commit when it charged.
func (s pgSplitDebit) inConnTx(ctx context.Context, conn *pgxpool.Conn, r Request, work func(pgx.Tx) (Response, error)) (Response, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return Response{}, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }() // a no-op once committed
	resp, err := work(tx)
	if err != nil {
		return Response{}, err
	}
	if resp.charged {
		s.deps.at(ctx, api.BeforeCommit, r)
	}
	if err := tx.Commit(ctx); err != nil {
		return Response{}, fmt.Errorf("commit: %w", err)
	}
	if resp.charged {
		s.deps.at(ctx, api.AfterCommit, r)
	}
	return resp, nil
}

// take reads the key and, when it is new, debits the account: one
// transaction, committed before the charge row is written.
func (s pgSplitDebit) take(ctx context.Context, conn *pgxpool.Conn, r Request) (taken, error) {
	var t taken
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		stored, found, err := loadKeyRow(ctx, tx, r.Key)
		if err != nil || found {
			t.stored, t.found = answerStored(s.deps, stored, r, true), found
			return err
		}
		s.deps.at(ctx, api.AfterCheck, r)
		t.balance, err = ledger.Take(ctx, tx, r.Body)
		if errors.Is(err, ledger.ErrInsufficientFunds) || errors.Is(err, ledger.ErrUnknownAccount) {
			t.refusal, err = err, nil
		}
		return err
	})
	return t, err
}

// record writes the key row, the charge row of the debit take committed
// (or the refusal) and the response, on tx.
func (s pgSplitDebit) record(ctx context.Context, tx pgx.Tx, r Request, t taken) (Response, error) {
	if _, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		VALUES ($1, $2, 0, '') ON CONFLICT DO NOTHING`, r.Key, r.Fingerprint); err != nil {
		return Response{}, fmt.Errorf("insert key: %w", err)
	}
	c, err := api.Charge{}, t.refusal
	if err == nil {
		c, err = ledger.Record(ctx, tx, debitOf(r), t.balance)
	}
	resp, err := chargeAnswer(c, err, r)
	if err != nil {
		return Response{}, err
	}
	s.deps.at(ctx, api.BeforeStoreResponse, r)
	if _, err := tx.Exec(ctx, sqlStoreResponse, r.Key, resp.Status, resp.Body); err != nil {
		return Response{}, fmt.Errorf("store response: %w", err)
	}
	return resp, nil
}

// lockSession takes the key's lock for the connection's session, without
// waiting: false when another request holds it.
func lockSession(ctx context.Context, conn *pgxpool.Conn, key string) (bool, error) {
	var locked bool
	start := time.Now()
	err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended($1, 0))`, key).Scan(&locked)
	claimed(ctx, start, false)
	if err != nil {
		return false, fmt.Errorf("claim key: %w", err)
	}
	return locked, nil
}

// unlockSession releases the key's lock, even once the request's context
// is done; a connection that cannot is closed, which releases it too.
func unlockSession(ctx context.Context, conn *pgxpool.Conn, key string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, key); err != nil {
		_ = conn.Conn().Close(ctx)
	}
}
