package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// open creates accounts in EUR with the given opening balances.
func open(t *testing.T, q ledger.Querier, openings map[string]int64) {
	t.Helper()
	for id, opening := range openings {
		if err := ledger.Open(context.Background(), q, id, "EUR", opening); err != nil {
			t.Fatal(err)
		}
	}
}

// chargeTx runs one Charge in a transaction of its own and commits it
// unless the charge failed.
func chargeTx(ctx context.Context, pool *pgxpool.Pool, d ledger.Debit) (api.Charge, error) {
	var c api.Charge
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		c, err = ledger.Charge(ctx, tx, d)
		return err
	})
	return c, err
}

func mustCharge(t *testing.T, pool *pgxpool.Pool, d ledger.Debit) api.Charge {
	t.Helper()
	c, err := chargeTx(context.Background(), pool, d)
	if err != nil {
		t.Fatalf("charge %+v: %v", d, err)
	}
	return c
}

func eur(account string, amount int64) api.ChargeRequest {
	return api.ChargeRequest{Account: account, Amount: amount, Currency: "EUR"}
}

func balance(t *testing.T, q ledger.Querier, id string) int64 {
	t.Helper()
	a, err := ledger.Balance(context.Background(), q, id)
	if err != nil {
		t.Fatalf("balance of %s: %v", id, err)
	}
	return a.Balance
}

func countCharges(t *testing.T, q ledger.Querier) int {
	t.Helper()
	n, err := ledger.CountCharges(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func read(t *testing.T, q ledger.Querier) ledger.Snapshot {
	t.Helper()
	s, err := ledger.Read(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// count runs a SELECT count(*) query.
func count(t *testing.T, q ledger.Querier, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := q.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestMigrateIsIdempotent: Migrate creates the three ledger tables, runs
// again on the same database without error, and keeps what is in them.
func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	pool := freshPool(t)
	tables := func() []string {
		rows, err := pool.Query(ctx, `SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	if got := tables(); len(got) != 0 {
		t.Fatalf("a fresh database already has tables %v", got)
	}
	if err := ledger.Migrate(ctx, pool); err != nil {
		t.Fatalf("first Migrate: %v", err)
	}
	want := []string{"accounts", "charges", "idempotency_keys"}
	if got := tables(); !slices.Equal(got, want) {
		t.Fatalf("tables after Migrate: %v; want %v", got, want)
	}
	open(t, pool, map[string]int64{"a": 1000})
	mustCharge(t, pool, ledger.Debit{Request: eur("a", 100), Key: "k"})
	if _, err := pool.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body) VALUES ('k', 'f', 201, '\x00')`); err != nil {
		t.Fatal(err)
	}

	if err := ledger.Migrate(ctx, pool); err != nil {
		t.Fatalf("second Migrate on the same database: %v", err)
	}
	if got := tables(); !slices.Equal(got, want) {
		t.Fatalf("tables after the second Migrate: %v; want %v", got, want)
	}
	if b := balance(t, pool, "a"); b != 900 {
		t.Errorf("balance after the second Migrate: %d; want 900 (the data must survive)", b)
	}
	if n := countCharges(t, pool); n != 1 {
		t.Errorf("charges after the second Migrate: %d; want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM idempotency_keys`); n != 1 {
		t.Errorf("idempotency keys after the second Migrate: %d; want 1", n)
	}
}

// TestChargeDebitsAndRecords: a committed Charge lowers the balance by the
// amount, records a row with the key, attempt id and replica, and answers
// the charge id of that row and the new balance. No key (or attempt id) is
// stored as NULL and read back as "".
func TestChargeDebitsAndRecords(t *testing.T) {
	ctx := context.Background()
	pool := migratedPool(t)
	open(t, pool, map[string]int64{"acct": 1000})

	got := mustCharge(t, pool, ledger.Debit{Request: eur("acct", 300), Key: "key-1", AttemptID: "att-1", Replica: 2})
	want := api.Charge{ID: "ch_1", Account: "acct", Amount: 300, Currency: "EUR", Balance: 700}
	if got != want {
		t.Fatalf("first charge answered %+v; want %+v", got, want)
	}
	if got.ID != ledger.ChargeID(1) {
		t.Fatalf("charge id %q; want ChargeID(1) = %q", got.ID, ledger.ChargeID(1))
	}
	if a, err := ledger.Balance(ctx, pool, "acct"); err != nil || a != (api.Account{ID: "acct", Balance: 700, Currency: "EUR"}) {
		t.Fatalf("Balance = %+v, %v; want 700 EUR", a, err)
	}

	got = mustCharge(t, pool, ledger.Debit{Request: eur("acct", 50)})
	if want := (api.Charge{ID: "ch_2", Account: "acct", Amount: 50, Currency: "EUR", Balance: 650}); got != want {
		t.Fatalf("keyless charge answered %+v; want %+v", got, want)
	}

	s := read(t, pool)
	wantRows := []ledger.ChargeRow{
		{Seq: 1, Account: "acct", Amount: 300, Key: "key-1", AttemptID: "att-1"},
		{Seq: 2, Account: "acct", Amount: 50, Key: "", AttemptID: ""},
	}
	if !reflect.DeepEqual(s.Charges, wantRows) {
		t.Fatalf("Read charges = %+v; want %+v", s.Charges, wantRows)
	}
	if s.Charges[1].ID() != got.ID {
		t.Errorf("ChargeRow.ID() = %q; the API answered %q", s.Charges[1].ID(), got.ID)
	}
	if want := []ledger.AccountRow{{ID: "acct", Opening: 1000, Balance: 650}}; !reflect.DeepEqual(s.Accounts, want) {
		t.Errorf("Read accounts = %+v; want %+v", s.Accounts, want)
	}

	// What is stored, beyond what Read shows: the replica, the currency,
	// and NULL (not "") for the missing key and attempt id.
	type stored struct {
		Replica             int
		Currency            string
		KeyNull, AttemptNul bool
	}
	rows, err := pool.Query(ctx, `SELECT replica, currency, idempotency_key IS NULL, attempt_id IS NULL FROM charges ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	st, err := pgx.CollectRows(rows, pgx.RowToStructByPos[stored])
	if err != nil {
		t.Fatal(err)
	}
	if want := []stored{{2, "EUR", false, false}, {0, "EUR", true, true}}; !reflect.DeepEqual(st, want) {
		t.Errorf("stored rows %+v; want %+v", st, want)
	}
	if n := count(t, pool, `SELECT count(*) FROM charges WHERE idempotency_key = ''`); n != 0 {
		t.Errorf("%d charges stored an empty key; want NULL", n)
	}
}

// TestChargeRefusals: a short balance, an unknown account and a currency
// the account is not in are refused with the business errors, and the
// refusal changes nothing. The charges run on the pool, outside any
// transaction, so a write before the refusal could not be rolled back.
func TestChargeRefusals(t *testing.T) {
	ctx := context.Background()
	pool := migratedPool(t)
	open(t, pool, map[string]int64{"poor": 500})
	for _, tc := range []struct {
		name string
		req  api.ChargeRequest
		want error
	}{
		{"short-by-one", eur("poor", 501), ledger.ErrInsufficientFunds},
		{"unknown-account", eur("nobody", 1), ledger.ErrUnknownAccount},
		// The UPDATE matches on the currency too, so a charge in another
		// currency finds no row to debit; refusal then sees the account
		// exists and calls it insufficient funds, though 1 <= 500.
		{"other-currency", api.ChargeRequest{Account: "poor", Amount: 1, Currency: "USD"}, ledger.ErrInsufficientFunds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ledger.Charge(ctx, pool, ledger.Debit{Request: tc.req, Key: "k-" + tc.name, AttemptID: "a-" + tc.name})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Charge(%+v) = %+v, %v; want %v", tc.req, c, err, tc.want)
			}
			if c != (api.Charge{}) {
				t.Errorf("a refused charge answered %+v; want the zero Charge", c)
			}
			if b := balance(t, pool, "poor"); b != 500 {
				t.Errorf("balance after the refusal: %d; want 500", b)
			}
			if n := countCharges(t, pool); n != 0 {
				t.Errorf("%d charge rows after the refusal; want 0", n)
			}
		})
	}
	// The whole balance may be spent: the boundary is not a refusal.
	if c := mustCharge(t, pool, ledger.Debit{Request: eur("poor", 500)}); c.Balance != 0 {
		t.Fatalf("charging the whole balance left %d; want 0", c.Balance)
	}
	if _, err := ledger.Charge(ctx, pool, ledger.Debit{Request: eur("poor", 1)}); !errors.Is(err, ledger.ErrInsufficientFunds) {
		t.Fatalf("charging an empty account: %v; want ErrInsufficientFunds", err)
	}
	if n := countCharges(t, pool); n != 1 {
		t.Fatalf("%d charge rows; want the 1 that was accepted", n)
	}
}

// TestRolledBackChargeLeavesNothing: the debit and the row of a Charge are
// in the caller's transaction; rolling it back undoes both.
func TestRolledBackChargeLeavesNothing(t *testing.T) {
	ctx := context.Background()
	pool := migratedPool(t)
	open(t, pool, map[string]int64{"acct": 1000})
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) // on a failure: the pool cannot close with the connection held
	c, err := ledger.Charge(ctx, tx, ledger.Debit{Request: eur("acct", 400), Key: "k", AttemptID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Balance != 600 {
		t.Fatalf("charge answered balance %d; want 600", c.Balance)
	}
	// Inside the transaction both statements took effect...
	if b, n := balance(t, tx, "acct"), countCharges(t, tx); b != 600 || n != 1 {
		t.Fatalf("inside the transaction: balance %d, %d rows; want 600 and 1", b, n)
	}
	// ...and neither is visible outside it before the commit.
	if b, n := balance(t, pool, "acct"), countCharges(t, pool); b != 1000 || n != 0 {
		t.Fatalf("outside the open transaction: balance %d, %d rows; want 1000 and 0", b, n)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if b, n := balance(t, pool, "acct"), countCharges(t, pool); b != 1000 || n != 0 {
		t.Fatalf("after the rollback: balance %d, %d rows; want 1000 and 0", b, n)
	}
}

// TestChargeFailsWhenTheRowCannotBeRecorded: when the INSERT of the row
// fails after the debit, Charge reports the failure (it must not answer a
// charge that has no row), and the caller's rollback undoes the debit.
func TestChargeFailsWhenTheRowCannotBeRecorded(t *testing.T) {
	ctx := context.Background()
	pool := migratedPool(t)
	open(t, pool, map[string]int64{"acct": 1000})
	// Only in this test's database: rows of 100 or more cannot be recorded,
	// while the accounts table still accepts the debit.
	if _, err := pool.Exec(ctx, `ALTER TABLE charges ADD CONSTRAINT small CHECK (amount < 100)`); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// Charge's own answer, not the commit's: a commit of the aborted
	// transaction would fail even if Charge swallowed the error.
	c, err := ledger.Charge(ctx, tx, ledger.Debit{Request: eur("acct", 150), Key: "k"})
	if err == nil || errors.Is(err, ledger.ErrInsufficientFunds) || errors.Is(err, ledger.ErrUnknownAccount) {
		t.Fatalf("Charge with an unrecordable row = %+v, %v; want a failure that is not a business refusal", c, err)
	}
	if c != (api.Charge{}) {
		t.Errorf("a failed charge answered %+v; want the zero Charge", c)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if b, n := balance(t, pool, "acct"), countCharges(t, pool); b != 1000 || n != 0 {
		t.Fatalf("after the failed charge: balance %d, %d rows; want 1000 and 0", b, n)
	}
}

// TestReadCountAndReset: Read lists charges in seq order and accounts by
// id, whatever the physical order of the rows; CountCharges counts them;
// Reset empties all three tables and restarts the numbering.
func TestReadCountAndReset(t *testing.T) {
	ctx := context.Background()
	pool := migratedPool(t)
	for _, id := range []string{"c", "a", "b"} { // not in id order
		if err := ledger.Open(ctx, pool, id, "EUR", 1000); err != nil {
			t.Fatal(err)
		}
	}
	for i, acct := range []string{"b", "a", "c", "a"} {
		mustCharge(t, pool, ledger.Debit{Request: eur(acct, int64(10*(i+1))), Key: fmt.Sprintf("k%d", i+1), AttemptID: fmt.Sprintf("att%d", i+1)})
	}
	// Rewriting rows moves them to the end of the heap: an unordered scan
	// would now return charge 1 last and account c after a and b.
	if _, err := pool.Exec(ctx, `UPDATE charges SET attempt_id = attempt_id WHERE seq IN (1, 2)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE accounts SET balance = balance WHERE id = 'b'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, response_status, response_body) VALUES ('k1', 'f', 201, '\x00')`); err != nil {
		t.Fatal(err)
	}

	s := read(t, pool)
	wantCharges := []ledger.ChargeRow{
		{Seq: 1, Account: "b", Amount: 10, Key: "k1", AttemptID: "att1"},
		{Seq: 2, Account: "a", Amount: 20, Key: "k2", AttemptID: "att2"},
		{Seq: 3, Account: "c", Amount: 30, Key: "k3", AttemptID: "att3"},
		{Seq: 4, Account: "a", Amount: 40, Key: "k4", AttemptID: "att4"},
	}
	if !reflect.DeepEqual(s.Charges, wantCharges) {
		t.Errorf("Read charges = %+v\nwant %+v", s.Charges, wantCharges)
	}
	wantAccounts := []ledger.AccountRow{{ID: "a", Opening: 1000, Balance: 940}, {ID: "b", Opening: 1000, Balance: 990}, {ID: "c", Opening: 1000, Balance: 970}}
	if !reflect.DeepEqual(s.Accounts, wantAccounts) {
		t.Errorf("Read accounts = %+v\nwant %+v", s.Accounts, wantAccounts)
	}
	if n := countCharges(t, pool); n != 4 {
		t.Errorf("CountCharges = %d; want 4", n)
	}

	if a, err := ledger.Balance(ctx, pool, "c"); err != nil || a != (api.Account{ID: "c", Balance: 970, Currency: "EUR"}) {
		t.Errorf("Balance(c) = %+v, %v; want 970 EUR", a, err)
	}
	if a, err := ledger.Balance(ctx, pool, "nobody"); !errors.Is(err, ledger.ErrUnknownAccount) {
		t.Errorf("Balance(nobody) = %+v, %v; want ErrUnknownAccount", a, err)
	}

	if err := ledger.Reset(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if s := read(t, pool); len(s.Charges) != 0 || len(s.Accounts) != 0 {
		t.Fatalf("after Reset: %+v; want an empty ledger", s)
	}
	if n := countCharges(t, pool); n != 0 {
		t.Errorf("CountCharges after Reset = %d; want 0", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM idempotency_keys`); n != 0 {
		t.Errorf("%d idempotency keys after Reset; want 0", n)
	}
	if _, err := ledger.Balance(ctx, pool, "a"); !errors.Is(err, ledger.ErrUnknownAccount) {
		t.Errorf("Balance(a) after Reset: %v; want ErrUnknownAccount", err)
	}
	open(t, pool, map[string]int64{"a": 100})
	if c := mustCharge(t, pool, ledger.Debit{Request: eur("a", 1)}); c.ID != "ch_1" {
		t.Errorf("first charge after Reset is %q; want ch_1 (numbering restarted)", c.ID)
	}
}

// TestConcurrentChargesNeverOverdraw: goroutines charging one account at
// once, each in its own transaction, never take it below zero; exactly as
// many succeed as the money allows, and the rows add up to what left the
// account.
func TestConcurrentChargesNeverOverdraw(t *testing.T) {
	const (
		opening = 1000
		amount  = 70
		tries   = 40 // 14 fit: 14*70 = 980, 20 remains
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool := migratedPoolOf(t, tries) // a connection each: all of them at once in Postgres
	open(t, pool, map[string]int64{"acct": opening})
	// Connect them all before the start, so the charges really overlap.
	var conns []*pgxpool.Conn
	for range tries {
		c, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}

	start := make(chan struct{})
	errs := make([]error, tries)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			<-start
			_, errs[i] = chargeTx(ctx, pool, ledger.Debit{Request: eur("acct", amount), Key: fmt.Sprintf("k%d", i), AttemptID: fmt.Sprintf("a%d", i)})
		})
	}
	close(start)
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the concurrent charges did not finish within the time bound: %v", ctx.Err())
	}

	ok, refused := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ledger.ErrInsufficientFunds):
			refused++
		default:
			t.Errorf("charge %d: %v", i, err)
		}
	}
	b := balance(t, pool, "acct")
	if b < 0 {
		t.Fatalf("balance %d: concurrent charges overdrew the account", b)
	}
	var rows int
	var sum int64
	if err := pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(amount), 0) FROM charges WHERE account = 'acct'`).Scan(&rows, &sum); err != nil {
		t.Fatal(err)
	}
	if sum != opening-b {
		t.Errorf("charges sum to %d but %d left the account (opening %d, balance %d)", sum, opening-b, opening, b)
	}
	if rows != ok {
		t.Errorf("%d charge rows for %d accepted charges", rows, ok)
	}
	if want := opening / amount; ok != want || refused != tries-want || b != int64(opening-want*amount) {
		t.Errorf("%d accepted, %d refused, balance %d; want %d, %d and %d", ok, refused, b, want, tries-want, opening-want*amount)
	}
}
