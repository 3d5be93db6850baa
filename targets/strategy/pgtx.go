package strategy

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// pgTx is the reference design: one Postgres transaction takes a non-blocking
// claim on the key, inserts the key row, charges and stores the response, so
// the key and the money commit or roll back together.
type pgTx struct{ deps Deps }

func newPgTx(d Deps) Strategy { return pgTx{d} }

// errBusy aborts the transaction of a duplicate that found the key locked.
var errBusy = errors.New("key locked by an in-flight request")

func (s pgTx) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	var resp Response
	err := pgx.BeginFunc(ctx, s.deps.Pool, func(tx pgx.Tx) error {
		var err error
		resp, err = s.inTx(ctx, tx, r)
		return err
	})
	switch {
	case errors.Is(err, errBusy):
		return inFlight(s.deps.Profile)
	case err != nil:
		return unavailable(err)
	}
	return resp
}

// inTx runs inside the transaction. The advisory lock never waits: a second
// INSERT ... ON CONFLICT on a key an open transaction inserted would block.
func (s pgTx) inTx(ctx context.Context, tx pgx.Tx, r Request) (Response, error) {
	var locked bool
	err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))`, r.Key).Scan(&locked)
	if err != nil {
		return Response{}, fmt.Errorf("claim key: %w", err)
	}
	if !locked {
		return Response{}, errBusy
	}
	stored, found, err := loadKeyRow(ctx, tx, r.Key)
	if err != nil || found {
		return answerStored(s.deps, stored, r), err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		VALUES ($1, $2, 0, '') ON CONFLICT DO NOTHING`, r.Key, r.Fingerprint); err != nil {
		return Response{}, fmt.Errorf("insert key: %w", err)
	}
	resp, err := charge(ctx, tx, r)
	if err != nil {
		return Response{}, err
	}
	_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET response_status = $2, response_body = $3 WHERE key = $1`,
		r.Key, resp.Status, resp.Body)
	return resp, err
}

type keyRow struct {
	fingerprint string
	resp        Response
}

func loadKeyRow(ctx context.Context, tx pgx.Tx, key string) (keyRow, bool, error) {
	var k keyRow
	err := tx.QueryRow(ctx, `SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE key = $1`,
		key).Scan(&k.fingerprint, &k.resp.Status, &k.resp.Body)
	if errors.Is(err, pgx.ErrNoRows) {
		return k, false, nil
	}
	if err != nil {
		return k, false, fmt.Errorf("read key: %w", err)
	}
	return k, true, nil
}

func answerStored(d Deps, k keyRow, r Request) Response {
	if k.fingerprint != r.Fingerprint {
		return mismatch(d.Profile)
	}
	return replay(k.resp)
}
