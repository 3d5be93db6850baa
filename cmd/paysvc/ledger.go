package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// schema is the ledger: one row per charge that moved money. Nothing in it
// is unique but the charge id: the service's key claims are its only guard
// against charging twice, so every mistake shows as money moved.
const schema = `CREATE TABLE IF NOT EXISTS charges (
	id              text PRIMARY KEY,
	idempotency_key text,
	account         text NOT NULL,
	amount          bigint NOT NULL,
	currency        text NOT NULL,
	attempt_id      text,
	created         timestamptz NOT NULL DEFAULT now()
)`

// ledgerQuery is what idemchaos --ledger-query reads.
const ledgerQuery = "SELECT idempotency_key, account, amount, id, attempt_id FROM charges"

// charge is one charge as the ledger keeps it.
type charge struct {
	ID       string
	Key      string
	Account  string
	Amount   int64
	Currency string
	Attempt  string // the X-Idemchaos-Attempt header of the request that made it
}

// ledger is the charges table, and the pool the charges' rows are written
// through (--commit-dsn's, else the ledger's own).
type ledger struct{ pool, commit *pgxpool.Pool }

// openLedger connects to the database and creates the table if need be;
// commitDSN ("": none) is a second path to it for the charges' rows.
func openLedger(ctx context.Context, dsn, commitDSN string) (*ledger, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %w", err)
	}
	l := &ledger{pool: pool, commit: pool}
	if commitDSN != "" {
		if l.commit, err = pgxpool.New(ctx, commitDSN); err != nil {
			pool.Close()
			return nil, fmt.Errorf("--commit-dsn: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := pool.Exec(ctx, schema); err != nil {
		l.close()
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return l, nil
}

func (l *ledger) close() {
	if l.commit != l.pool {
		l.commit.Close()
	}
	l.pool.Close()
}

// insert writes c's row.
func (l *ledger) insert(ctx context.Context, c charge) error {
	_, err := l.commit.Exec(ctx, `INSERT INTO charges (id, idempotency_key, account, amount, currency, attempt_id)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''))`, c.ID, c.Key, c.Account, c.Amount, c.Currency, c.Attempt)
	return err
}

// read reads the row of charge id.
func (l *ledger) read(ctx context.Context, id string) (charge, error) {
	c := charge{ID: id}
	err := l.pool.QueryRow(ctx, `SELECT idempotency_key, account, amount, currency, coalesce(attempt_id, '') FROM charges WHERE id = $1`, id).
		Scan(&c.Key, &c.Account, &c.Amount, &c.Currency, &c.Attempt)
	return c, err
}
