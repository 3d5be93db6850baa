package strategy

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func init() { bind(design.PgStandbyRead, newPgStandbyRead) }

// pgStandbyRead looks the key up on a hot standby, to spare the primary
// the read that every request makes, and when it is not found there
// charges on the primary and writes the key row after the charge with
// INSERT ... ON CONFLICT DO NOTHING. The key row's primary key guards
// nothing: no claim precedes the charge, so when the standby lags behind
// the primary a retry of a completed key finds nothing and charges again
// (the conflict only drops the second key row). Without a standby it reads
// the primary, and the same check-then-act gap is a race between
// concurrent duplicates.
type pgStandbyRead struct {
	deps Deps
	read *pgxpool.Pool
}

func newPgStandbyRead(d Deps) Strategy {
	read := d.Standby
	if read == nil {
		read = d.Pool
	}
	return pgStandbyRead{deps: d, read: read}
}

func (s pgStandbyRead) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	// one round trip on any connection (no prepare first, as through a
	// pooler in front of standbys): how long the look-up takes on a slow
	// link must not depend on which connection the pool hands out
	stored, found, err := loadKeyRow(ctx, s.read, r.Key, pgx.QueryExecModeExec)
	if err != nil {
		return unavailable(fmt.Errorf("on the standby: %w", err))
	}
	if found {
		return answerStored(s.deps, stored, r, true)
	}
	s.deps.at(ctx, api.AfterCheck, r)
	resp, err := inTx(ctx, s.deps, r, func(tx *txn) (Response, error) { return s.chargeThenKey(ctx, tx, r) })
	if err != nil {
		return unavailable(err)
	}
	return resp
}

// chargeThenKey charges, then records the key with its response (sent
// with the commit); a key row already there is left as it is.
func (s pgStandbyRead) chargeThenKey(ctx context.Context, tx *txn, r Request) (Response, error) {
	resp, err := charge(ctx, tx, r)
	if err != nil || !cacheable(resp) {
		return resp, err
	}
	s.deps.at(ctx, api.BeforeStoreResponse, r)
	tx.atCommit(`INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
		VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, r.Key, r.Fingerprint, resp.Status, resp.Body)
	return resp, nil
}
