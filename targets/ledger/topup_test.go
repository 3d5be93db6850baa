package ledger_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// TestTopUpFundsADeclinedCharge: a charge over the balance is refused; a
// top-up credits the account (balance and credited total); the same
// charge then goes through. An unknown account or a non-positive amount
// is refused and credits nothing.
func TestTopUpFundsADeclinedCharge(t *testing.T) {
	ctx := context.Background()
	pool := migratedPool(t)
	open(t, pool, map[string]int64{"poor": 500})
	if _, err := chargeTx(ctx, pool, ledger.Debit{Request: eur("poor", 800), Key: "k"}); !errors.Is(err, ledger.ErrInsufficientFunds) {
		t.Fatalf("charging 800 of 500: %v; want ErrInsufficientFunds", err)
	}
	a, err := ledger.TopUp(ctx, pool, "poor", 800)
	if err != nil {
		t.Fatal(err)
	}
	if want := (api.Account{ID: "poor", Balance: 1300, Currency: "EUR"}); a != want {
		t.Fatalf("TopUp answered %+v; want %+v", a, want)
	}
	mustCharge(t, pool, ledger.Debit{Request: eur("poor", 800), Key: "k"})
	if want := []ledger.AccountRow{{ID: "poor", Opening: 500, Balance: 500, Credited: 800}}; !reflect.DeepEqual(read(t, pool).Accounts, want) {
		t.Fatalf("accounts %+v; want %+v", read(t, pool).Accounts, want)
	}
	if _, err := ledger.TopUp(ctx, pool, "nobody", 10); !errors.Is(err, ledger.ErrUnknownAccount) {
		t.Errorf("top-up of an unknown account: %v; want ErrUnknownAccount", err)
	}
	for _, amount := range []int64{0, -5} {
		if _, err := ledger.TopUp(ctx, pool, "poor", amount); err == nil {
			t.Errorf("top-up of %d: no error", amount)
		}
	}
	if b := balance(t, pool, "poor"); b != 500 {
		t.Errorf("balance after the refused top-ups: %d; want 500", b)
	}
}

// TestMigrateAddsCreditedToAnOlderLedger: a ledger made before accounts
// kept their credits gets the column, 0 for every account, data kept.
func TestMigrateAddsCreditedToAnOlderLedger(t *testing.T) {
	ctx := context.Background()
	pool := freshPool(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE accounts (id text PRIMARY KEY, currency text NOT NULL,
		opening bigint NOT NULL, balance bigint NOT NULL);
		INSERT INTO accounts VALUES ('old', 'EUR', 1000, 900)`); err != nil {
		t.Fatal(err)
	}
	if err := ledger.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if want := []ledger.AccountRow{{ID: "old", Opening: 1000, Balance: 900}}; !reflect.DeepEqual(read(t, pool).Accounts, want) {
		t.Fatalf("accounts %+v; want %+v", read(t, pool).Accounts, want)
	}
}

// TestMigrateRefusesAForeignTable: a database that already holds another
// service's idempotency_keys table is refused, in one line naming the
// table and a column it lacks, and nothing of it is changed.
func TestMigrateRefusesAForeignTable(t *testing.T) {
	ctx := context.Background()
	pool := freshPool(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE idempotency_keys (key text PRIMARY KEY, status int, response jsonb)`); err != nil {
		t.Fatal(err)
	}
	err := ledger.Migrate(ctx, pool)
	if err == nil || !strings.Contains(err.Error(), "table idempotency_keys of another shape (no column fingerprint)") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Migrate: %v; want one line naming idempotency_keys and fingerprint", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns WHERE table_name = 'idempotency_keys'`).Scan(&n); err != nil || n != 3 {
		t.Errorf("the foreign table has %d columns now (%v); want its 3", n, err)
	}
}
