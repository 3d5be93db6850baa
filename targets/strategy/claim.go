package strategy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// claim is what one round trip of claiming a key found: whether the
// advisory lock was taken (always true for a claim by insert), whether the
// key row was inserted (for a claim under the lock: whether the key is
// free, its row written only with the response), else the row that was
// there, and the charge the round trip made when the key was claimed
// (seq and balance nil when it made none: a refusal, or no claim).
type claim struct {
	locked, inserted bool
	row              keyRow
	found            bool
	seq, balance     *int64
	stored           []byte // the 201 body stored with the charge (nil: none)
}

// The statements of a claim. The read of the key row runs after the lock
// or the insert as a statement of its own, so its snapshot sees a row
// committed while the insert waited or the lock was taken (one statement's
// snapshot is taken before either).
const (
	sqlClaimInsert = `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		VALUES ($1, $2, 0, '') ON CONFLICT DO NOTHING`
	sqlReadKey   = `SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE key = $1`
	sqlLock      = `SELECT set_config('idemchaos.held', pg_try_advisory_xact_lock(hashtextextended($1::text, 0))::text, true)`
	sqlInsertKey = `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		VALUES ($1, $2, $3, $4)`
)

// The second statement of a claim that charges in its round trip: the key
// row, and the charge where the claim holds (ledger.ChargeCTEs).
//
// Under the lock, whether the first statement took it is read back from
// the setting it wrote (set_config ... true: local to the transaction).
// This statement never takes the lock itself: its snapshot is taken when it
// starts, so a lock it took from a holder that committed meanwhile would
// come with a snapshot that misses the holder's key row, and it would
// charge again. Taken by the statement before, the lock is older than the
// snapshot, which then sees every row a holder committed: the key is free
// when no row is there.
//
// After the insert, the key is this transaction's when its row is there in
// progress (an open transaction's row is invisible to every other, and a
// committed row always carries its response).
var (
	sqlLockedCharge   = checkAndCharge(`current_setting('idemchaos.held')::boolean`, `NOT EXISTS (SELECT 1 FROM k)`, sqlStoreNew)
	sqlInsertedCharge = checkAndCharge(`true`, `EXISTS (SELECT 1 FROM k WHERE response_status = 0)`, sqlStoreInProgress)
)

// The statement that charges also stores the answer with the key row
// (inserted under the lock, updated after the insert): the 201, its body
// built around the charge row's seq and the new balance, the rest of it
// ($7) as encoding/json writes api.Charge (chargeBodyRest). Nothing is
// stored when nothing was charged: a refusal is stored with the COMMIT.
// $8 is the fingerprint (the row updated is the one this request inserted).
const (
	sqlChargedBody = `convert_to('{"id":"ch_' || ins.seq || $7::text || debit.balance || '}', 'UTF8')`
	sqlStoreNew    = `stored AS (
	INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
	SELECT $4::text, $8::text, 201, ` + sqlChargedBody + ` FROM ins, debit RETURNING response_body
)`
	sqlStoreInProgress = `stored AS (
	UPDATE idempotency_keys SET response_status = 201, response_body = ` + sqlChargedBody + `
	FROM ins, debit WHERE key = $4::text AND fingerprint = $8::text RETURNING response_body
)`
)

func checkAndCharge(held, free, store string) string {
	return `WITH lock AS (SELECT ` + held + ` AS held),
k AS (SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE key = $4::text),
` + ledger.ChargeCTEs(`(SELECT held FROM lock) AND `+free) + `, ` + store + `
SELECT lock.held, k.fingerprint, k.response_status, k.response_body, ins.seq, debit.balance, stored.response_body
FROM lock LEFT JOIN k ON true LEFT JOIN (ins CROSS JOIN debit) ON true LEFT JOIN stored ON true`
}

// chargeArgs are the parameters of a claim's charge: ledger.ChargeArgs,
// the rest of the 201 body, the fingerprint.
func chargeArgs(r Request) []any {
	return append(ledger.ChargeArgs(debitOf(r)), chargeBodyRest(r.Body), r.Fingerprint)
}

// chargeBodyRest is a 201 body from the end of the charge id to the
// balance: `","account":...,"balance":`, cut from what encoding/json writes
// for the charge (TestStoredChargeBody holds the two equal).
func chargeBodyRest(b api.ChargeRequest) string {
	full := JSON(http.StatusCreated, api.Charge{Account: b.Account, Amount: b.Amount, Currency: b.Currency}).Body
	return string(full[len(`{"id":"`) : len(full)-len(`0}`)])
}

// claimMode is how a claim takes the key.
type claimMode int

const (
	underLock claimMode = iota // the advisory lock, never waiting; the key row comes with the response
	byInsert                   // the key row's insert, waiting for an open transaction that inserted it
)

// claimAndCharge claims the key, reads its row and, where the key is
// this request's, charges: one round trip (with BEGIN). A charge the claim
// does not own is refused as an error, which rolls the transaction back.
func claimAndCharge(ctx context.Context, tx *txn, r Request, mode claimMode) (claim, error) {
	var c claim
	var b pgx.Batch
	if mode == underLock {
		b.Queue(sqlLock, r.Key).Exec(ignoreTag)
	} else {
		b.Queue(sqlClaimInsert, r.Key, r.Fingerprint).Exec(func(tag pgconn.CommandTag) error {
			c.inserted = tag.RowsAffected() == 1
			return nil
		})
	}
	sql := sqlInsertedCharge
	if mode == underLock {
		sql = sqlLockedCharge
	}
	var fp *string
	var status *int
	b.Queue(sql, chargeArgs(r)...).QueryRow(func(row pgx.Row) error {
		return row.Scan(&c.locked, &fp, &status, &c.row.resp.Body, &c.seq, &c.balance, &c.stored)
	})
	start := time.Now()
	err := tx.send(ctx, &b)
	claimed(ctx, start, mode == byInsert)
	if err != nil {
		return c, fmt.Errorf("claim key: %w", err)
	}
	if c.found = fp != nil; c.found {
		c.row.fingerprint, c.row.resp.Status = *fp, *status
	}
	if mode == underLock {
		c.inserted = c.locked && !c.found
	}
	switch {
	case c.seq != nil && !c.inserted:
		return c, errors.New("claim key: charged a key this request does not hold")
	case (c.seq != nil) != (c.stored != nil):
		return c, errors.New("claim key: a charge and its stored answer must come together")
	}
	return c, nil
}

// answer is the response to the claim's charge: the 201 its statement
// stored with the key row, or the refusal (looked up on tx) its debit met.
func (c claim) answer(ctx context.Context, tx *txn, r Request) (Response, error) {
	if c.stored != nil {
		return Response{Status: http.StatusCreated, Body: c.stored, charged: true}, nil
	}
	ch, err := ledger.Outcome(ctx, tx, debitOf(r), c.seq, c.balance, nil)
	return chargeAnswer(ch, err, r)
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
	start := time.Now()
	err := tx.send(ctx, &b)
	claimed(ctx, start, true)
	if err != nil {
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
