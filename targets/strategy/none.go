package strategy

import "context"

// noneStrategy has no idempotency layer at all: the key is ignored.
type noneStrategy struct{ deps Deps }

func newNone(d Deps) Strategy { return noneStrategy{d} }

func (s noneStrategy) Handle(ctx context.Context, r Request) Response {
	return runCharge(ctx, s.deps, r)
}
