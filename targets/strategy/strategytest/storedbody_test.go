package strategytest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// TestStoredChargeBody: the strategies that build a charge's 201 body in
// the statement that charges (the key row stores it there) answer, and
// replay, exactly the bytes encoding/json writes for the charge, accounts
// that JSON must escape included (a quote, a backslash, <, > and &, a
// line separator, a non-ASCII letter).
func TestStoredChargeBody(t *testing.T) {
	accounts := []string{"acct-1", `a"b\c`, "<x>&y", "line\u2028sep", "café"}
	for _, name := range []string{"pg-tx", "pg-blocking-claim", "redis-pg-guard"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
			defer cancel()
			fx := newFixture(ctx, t, name, nil)
			st := fx.replica()
			for i, acct := range accounts {
				if err := ledger.Open(ctx, fx.deps.Pool, acct+"!", "EUR", opening); err != nil {
					t.Fatal(err)
				}
				body := api.ChargeRequest{Account: acct + "!", Amount: int64(100 + i), Currency: "EUR"}
				first := fx.sendKey(ctx, st, "key-"+acct, body)
				if first.Status != 201 {
					t.Fatalf("account %q: %d %s", acct, first.Status, first.Body)
				}
				var seq int64
				if err := fx.deps.Pool.QueryRow(ctx, `SELECT seq FROM charges WHERE idempotency_key = $1`, "key-"+acct).Scan(&seq); err != nil {
					t.Fatalf("account %q: the charge row: %v", acct, err)
				}
				want, _ := json.Marshal(api.Charge{ID: ledger.ChargeID(seq), Account: body.Account, Amount: body.Amount,
					Currency: body.Currency, Balance: opening - body.Amount})
				if !bytes.Equal(first.Body, want) {
					t.Errorf("account %q: answered\n%s\nwant what encoding/json writes\n%s", acct, first.Body, want)
				}
				if again := fx.sendKey(ctx, st, "key-"+acct, body); !again.Replayed || !bytes.Equal(again.Body, first.Body) {
					t.Errorf("account %q: retry answered %d %s (replayed %v), want the first answer replayed", acct, again.Status, again.Body, again.Replayed)
				}
			}
		})
	}
}
