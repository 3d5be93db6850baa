package strategy

import (
	"context"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func init() { bind(design.NoLayer, newNone) }

// noneStrategy has no idempotency layer at all: the key is ignored.
type noneStrategy struct{ deps Deps }

func newNone(d Deps) Strategy { return noneStrategy{d} }

func (s noneStrategy) Handle(ctx context.Context, r Request) Response {
	return runCharge(ctx, s.deps, r)
}
