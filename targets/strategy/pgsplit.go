package strategy

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/jackc/pgx/v5"
)

// pgSplit commits the key row as in progress in a first transaction, then
// charges and completes it in a second. Nothing ever recovers a key whose
// second transaction failed: it stays in progress, and every retry gets 409.
type pgSplit struct{ deps Deps }

func newPgSplit(d Deps) Strategy { return pgSplit{d} }

// errTaken aborts the first transaction when the key row already exists.
var errTaken = errors.New("key row exists")

func (s pgSplit) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	stored, err := s.claim(ctx, r)
	switch {
	case errors.Is(err, errTaken):
		return answerStored(s.deps, stored, r, true)
	case err != nil:
		return unavailable(err)
	}
	s.deps.at(ctx, api.AfterCheck, r)
	s.deps.at(ctx, api.AfterClaim, r)
	resp, err := inTx(ctx, s.deps, r, func(tx pgx.Tx) (Response, error) {
		resp, err := charge(ctx, tx, r)
		if err != nil {
			return Response{}, err
		}
		s.deps.at(ctx, api.BeforeStoreResponse, r)
		return resp, storeKeyResponse(ctx, tx, r.Key, resp)
	})
	if err != nil {
		return unavailable(err) // the key row stays in progress: poisoned
	}
	return resp
}

// claim commits the key row in progress; errTaken returns the existing row.
func (s pgSplit) claim(ctx context.Context, r Request) (keyRow, error) {
	var stored keyRow
	err := pgx.BeginFunc(ctx, s.deps.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body)
			VALUES ($1, $2, 0, '') ON CONFLICT DO NOTHING`, r.Key, r.Fingerprint)
		if err != nil {
			return fmt.Errorf("claim key: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return nil
		}
		stored, _, err = loadKeyRow(ctx, tx, r.Key)
		if err != nil {
			return err
		}
		return errTaken
	})
	return stored, err
}
