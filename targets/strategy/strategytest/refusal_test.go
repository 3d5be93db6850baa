package strategytest

import (
	"context"

	"github.com/idemchaos/idemchaos/targets/api"
)

// refusalCase (g): a charge of more than the account holds is declined
// (402); the account is then funded with that amount; the retry of the
// same key and body must get the refusal replayed and charge nothing: a
// declined charge is a completed result, as a 2xx is.
func refusalCase(ctx context.Context, fx *fixture) violations {
	var v violations
	st := fx.replica()
	big := pay
	big.Amount = opening + 1
	first := fx.send(ctx, st, 0, "A", big)
	if first.Status != api.StatusDeclined {
		v.add("A, %d over the balance, got %s; want %d (declined)", big.Amount-opening, show(first), api.StatusDeclined)
		return v
	}
	if err := fx.book.topUp(ctx, account, big.Amount); err != nil {
		fx.t.Fatalf("top up: %v", err)
	}
	again := fx.send(ctx, st, 0, "B", big)
	v.replayOf("the retry after the top-up", first, again)
	v.charged(fx.charges(ctx), 0)
	return v
}
