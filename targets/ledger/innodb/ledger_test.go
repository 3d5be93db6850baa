package innodb_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/ledger/innodb"
)

func debit(account string, amount int64, key string) ledger.Debit {
	return ledger.Debit{Request: api.ChargeRequest{Account: account, Amount: amount, Currency: "EUR"},
		Key: key, AttemptID: "att-" + key}
}

// TestChargeDebitsAndRecords: a charge moves the money and writes its row
// with the same ids as Postgres (ch_1, ch_2, ...), and Read shows both.
func TestChargeDebitsAndRecords(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := migratedDB(t, 4)
	if err := innodb.OpenAccount(ctx, db, "acct", "EUR", 1000); err != nil {
		t.Fatal(err)
	}
	for i, want := range []api.Charge{
		{ID: "ch_1", Account: "acct", Amount: 300, Currency: "EUR", Balance: 700},
		{ID: "ch_2", Account: "acct", Amount: 300, Currency: "EUR", Balance: 400},
	} {
		got, err := innodb.ChargeTx(ctx, db, debit("acct", 300, []string{"k1", ""}[i]))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("charge %d = %+v, want %+v", i+1, got, want)
		}
	}
	snap, err := innodb.Read(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Snapshot{
		Charges: []ledger.ChargeRow{
			{Seq: 1, Account: "acct", Amount: 300, Key: "k1", AttemptID: "att-k1"},
			{Seq: 2, Account: "acct", Amount: 300, AttemptID: "att-"},
		},
		Accounts: []ledger.AccountRow{{ID: "acct", Opening: 1000, Balance: 400}},
	}
	if !equalSnap(snap, want) {
		t.Fatalf("read %+v, want %+v", snap, want)
	}
	var id string
	if err := db.QueryRowContext(ctx, `SELECT id FROM charge_rows WHERE idempotency_key = 'k1'`).Scan(&id); err != nil || id != "ch_1" {
		t.Fatalf("charge_rows: %q, %v; want ch_1", id, err)
	}
}

func equalSnap(a, b ledger.Snapshot) bool {
	if len(a.Charges) != len(b.Charges) || len(a.Accounts) != len(b.Accounts) {
		return false
	}
	for i := range a.Charges {
		if a.Charges[i] != b.Charges[i] {
			return false
		}
	}
	for i := range a.Accounts {
		if a.Accounts[i] != b.Accounts[i] {
			return false
		}
	}
	return true
}

// TestChargeRefusals: not enough money (the 402 of the API) and an
// unknown account are business refusals that move nothing.
func TestChargeRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := migratedDB(t, 4)
	if err := innodb.OpenAccount(ctx, db, "acct", "EUR", 100); err != nil {
		t.Fatal(err)
	}
	if _, err := innodb.ChargeTx(ctx, db, debit("acct", 101, "k")); !errors.Is(err, ledger.ErrInsufficientFunds) {
		t.Fatalf("overdraft: %v, want ErrInsufficientFunds", err)
	}
	if _, err := innodb.ChargeTx(ctx, db, debit("nobody", 1, "k")); !errors.Is(err, ledger.ErrUnknownAccount) {
		t.Fatalf("unknown account: %v, want ErrUnknownAccount", err)
	}
	a, err := innodb.Balance(ctx, db, "acct")
	if err != nil || a.Balance != 100 {
		t.Fatalf("balance %+v, %v; want 100", a, err)
	}
	if n, err := innodb.CountCharges(ctx, db); err != nil || n != 0 {
		t.Fatalf("%d charges, %v; want none", n, err)
	}
	if _, err := innodb.Balance(ctx, db, "nobody"); !errors.Is(err, ledger.ErrUnknownAccount) {
		t.Fatalf("balance of nobody: %v", err)
	}
}

// TestTopUpFundsADeclinedCharge: a top-up credits the account, keeps
// balance = opening + credited - charges, and lets a declined charge pass.
func TestTopUpFundsADeclinedCharge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := migratedDB(t, 4)
	if err := innodb.OpenAccount(ctx, db, "acct", "EUR", 100); err != nil {
		t.Fatal(err)
	}
	if _, err := innodb.ChargeTx(ctx, db, debit("acct", 150, "k")); !errors.Is(err, ledger.ErrInsufficientFunds) {
		t.Fatalf("before the top-up: %v", err)
	}
	accounts := innodb.Accounts{DB: db} // as the API's accounts routes credit it
	a, err := accounts.TopUp(ctx, "acct", 100)
	if err != nil || a.Balance != 200 || a.Currency != "EUR" {
		t.Fatalf("top up: %+v, %v", a, err)
	}
	if b, err := accounts.Balance(ctx, "acct"); err != nil || b != a {
		t.Fatalf("balance after the top-up: %+v, %v; want %+v", b, err, a)
	}
	if _, err := accounts.TopUp(ctx, "nobody", 1); !errors.Is(err, ledger.ErrUnknownAccount) {
		t.Fatalf("top up nobody: %v", err)
	}
	if _, err := innodb.ChargeTx(ctx, db, debit("acct", 150, "k")); err != nil {
		t.Fatalf("after the top-up: %v", err)
	}
	snap, err := innodb.Read(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if a := snap.Accounts[0]; a.Opening+a.Credited-150 != a.Balance || a.Credited != 100 {
		t.Fatalf("account %+v after a top-up of 100 and a charge of 150", a)
	}
}

// TestRolledBackChargeLeavesNothing: both writes of a charge are in the
// caller's transaction.
func TestRolledBackChargeLeavesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := migratedDB(t, 4)
	if err := innodb.OpenAccount(ctx, db, "acct", "EUR", 100); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := innodb.Charge(ctx, tx, debit("acct", 40, "k")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	snap, err := innodb.Read(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Charges) != 0 || snap.Accounts[0].Balance != 100 {
		t.Fatalf("after a rollback: %+v", snap)
	}
}

// TestMigrateAndReset: Migrate runs twice, refuses a foreign table, and
// Reset empties the ledger and restarts the charge numbering at ch_1.
func TestMigrateAndReset(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := migratedDB(t, 4)
	if err := innodb.Migrate(ctx, db); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	if err := innodb.OpenAccount(ctx, db, "acct", "EUR", 100); err != nil {
		t.Fatal(err)
	}
	if _, err := innodb.ChargeTx(ctx, db, debit("acct", 10, "k")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES ('k', 'f', 201, '')"); err != nil {
		t.Fatal(err)
	}
	if err := innodb.Reset(ctx, db); err != nil {
		t.Fatal(err)
	}
	var keys int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM idempotency_keys`).Scan(&keys); err != nil || keys != 0 {
		t.Fatalf("%d keys after reset, %v", keys, err)
	}
	if err := innodb.OpenAccount(ctx, db, "acct", "EUR", 100); err != nil {
		t.Fatalf("reopen after reset: %v", err)
	}
	c, err := innodb.ChargeTx(ctx, db, debit("acct", 10, "k"))
	if err != nil || c.ID != "ch_1" {
		t.Fatalf("first charge after reset: %+v, %v; want ch_1", c, err)
	}

	other := freshDB(t, 2)
	if _, err := other.ExecContext(ctx, `CREATE TABLE charges (id INT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	err = innodb.Migrate(ctx, other)
	if err == nil || !strings.Contains(err.Error(), "table charges of another shape") {
		t.Fatalf("migrate on a foreign charges table: %v", err)
	}
}

// TestKeysCompareByteForByte: two keys that differ only in case are two
// keys (MariaDB's default collation would fold them into one).
func TestKeysCompareByteForByte(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := migratedDB(t, 2)
	for _, k := range []string{"Key-A", "key-a"} {
		if _, err := db.ExecContext(ctx, "INSERT INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES (?, 'f', 0, '')", k); err != nil {
			t.Fatalf("insert %s: %v", k, err)
		}
	}
}

// TestConcurrentChargesNeverOverdraw: charges racing on one account move
// exactly the money there is, each under its own transaction.
func TestConcurrentChargesNeverOverdraw(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db := migratedDB(t, 8)
	if err := innodb.OpenAccount(ctx, db, "acct", "EUR", 1000); err != nil {
		t.Fatal(err)
	}
	const n = 16 // 16 charges of 100 on 1000: 10 pass, 6 are declined
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := innodb.ChargeTx(ctx, db, debit("acct", 100, ""))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	ok, declined := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ledger.ErrInsufficientFunds):
			declined++
		default:
			t.Fatalf("charge: %v", err)
		}
	}
	snap, err := innodb.Read(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if ok != 10 || declined != 6 || len(snap.Charges) != 10 || snap.Accounts[0].Balance != 0 {
		t.Fatalf("%d charged, %d declined, %d rows, balance %d; want 10, 6, 10, 0", ok, declined, len(snap.Charges), snap.Accounts[0].Balance)
	}
}
