package strategy

import (
	"context"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func init() { bind(design.PgSplitTx, newPgSplit) }

// pgSplit commits the key row as in progress in a first transaction, then
// charges and completes it in a second. Nothing ever recovers a key whose
// second transaction failed: it stays in progress, and every retry gets 409.
type pgSplit struct{ deps Deps }

func newPgSplit(d Deps) Strategy { return pgSplit{d} }

func (s pgSplit) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	c, err := claimInsert(ctx, autocommit{s.deps.Pool}, r) // commits at once
	switch {
	case err != nil:
		return unavailable(err)
	case !c.inserted:
		return answerFound(s.deps, c, r, true)
	}
	s.deps.at(ctx, api.AfterCheck, r)
	s.deps.at(ctx, api.AfterClaim, r)
	resp, err := inTx(ctx, s.deps, r, func(tx *txn) (Response, error) { return chargeAndStore(ctx, s.deps, tx, r) })
	if err != nil {
		return unavailable(err) // the key row stays in progress: poisoned
	}
	return resp
}
