package strategy

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// claim is what one round trip of claiming a key found: whether the
// advisory lock was taken (always true for a claim by insert), whether the
// key row was inserted, and else the row that was there.
type claim struct {
	locked, inserted bool
	row              keyRow
	found            bool
}

// The statements of a claim. The read runs after the insert as a statement
// of its own, so its snapshot sees a row committed while the insert waited
// or took the lock (one statement's snapshot is taken before either).
const (
	sqlClaimUnderLock = `WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1::text, 0)) AS held),
	ins AS (INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		SELECT $1::text, $2::text, 0, ''::bytea FROM lock WHERE held ON CONFLICT DO NOTHING RETURNING 1)
	SELECT held, EXISTS (SELECT 1 FROM ins) FROM lock`
	sqlClaimInsert = `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		VALUES ($1, $2, 0, '') ON CONFLICT DO NOTHING`
	sqlReadKey = `SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE key = $1`
)

// claimUnderLock takes the key's advisory lock without waiting and, under
// it, inserts the key row in progress, in one round trip with BEGIN.
func claimUnderLock(ctx context.Context, tx *txn, r Request) (claim, error) {
	var c claim
	var b pgx.Batch
	b.Queue(sqlClaimUnderLock, r.Key, r.Fingerprint).QueryRow(func(row pgx.Row) error {
		return row.Scan(&c.locked, &c.inserted)
	})
	queueReadKey(&b, r.Key, &c)
	if err := tx.send(ctx, &b); err != nil {
		return c, fmt.Errorf("claim key: %w", err)
	}
	return c, nil
}

// sender runs a batch in one round trip: a txn, or autocommit.
type sender interface {
	send(ctx context.Context, b *pgx.Batch) error
}

// autocommit runs a batch on the pool as one implicit transaction.
type autocommit struct{ pool *pgxpool.Pool }

func (a autocommit) send(ctx context.Context, b *pgx.Batch) error {
	return a.pool.SendBatch(ctx, b).Close()
}

// claimInsert inserts the key row in progress, waiting for an open
// transaction that inserted it, in one round trip with BEGIN.
func claimInsert(ctx context.Context, tx sender, r Request) (claim, error) {
	c := claim{locked: true}
	var b pgx.Batch
	b.Queue(sqlClaimInsert, r.Key, r.Fingerprint).Exec(func(tag pgconn.CommandTag) error {
		c.inserted = tag.RowsAffected() == 1
		return nil
	})
	queueReadKey(&b, r.Key, &c)
	if err := tx.send(ctx, &b); err != nil {
		return c, fmt.Errorf("claim key: %w", err)
	}
	return c, nil
}

// queueReadKey reads the key row into c (only meaningful when c's insert
// did not insert it).
func queueReadKey(b *pgx.Batch, key string, c *claim) {
	b.Queue(sqlReadKey, key).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&c.row.fingerprint, &c.row.resp.Status, &c.row.resp.Body)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read key: %w", err)
		}
		c.found = true
		return nil
	})
}

// answerFound answers a claim that found the key taken: from its row, or
// 409 when the row it collided with was gone by the read (released by a
// transaction that rolled back or deleted it).
func answerFound(d Deps, c claim, r Request, checkFingerprint bool) Response {
	if !c.found {
		return inFlight(d.Profile)
	}
	return answerStored(d, c.row, r, checkFingerprint)
}
