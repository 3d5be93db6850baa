// Package ledger is the Postgres ledger of the payment API: accounts, the
// charges that really moved money, and the idempotency-key table that
// Postgres-backed strategies use. It is the ground truth the checker reads.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Errors that are business outcomes, not failures.
var (
	ErrInsufficientFunds = errors.New("ledger: insufficient funds")
	ErrUnknownAccount    = errors.New("ledger: unknown account")
)

// Querier is what a charge needs: a pool, a connection or a transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// schema is idempotent: Migrate may run on every start (a database made
// before accounts had credited gets the column). The view
// charge_rows is the ledger as an external run reads it (--ledger-query):
// one row per charge with the charge id the API answers and the attempt
// that made it.
const schema = `
CREATE TABLE IF NOT EXISTS accounts (
	id       text PRIMARY KEY,
	currency text NOT NULL,
	opening  bigint NOT NULL,
	balance  bigint NOT NULL,
	credited bigint NOT NULL DEFAULT 0
);
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS credited bigint NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS charges (
	seq             bigserial PRIMARY KEY,
	account         text NOT NULL REFERENCES accounts(id),
	amount          bigint NOT NULL,
	currency        text NOT NULL,
	idempotency_key text,
	attempt_id      text,
	replica         int NOT NULL DEFAULT 0,
	created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE OR REPLACE VIEW charge_rows AS
	SELECT idempotency_key, account, amount, 'ch_' || seq AS id, attempt_id FROM charges;
CREATE TABLE IF NOT EXISTS idempotency_keys (
	key             text PRIMARY KEY,
	fingerprint     text NOT NULL,
	response_status int NOT NULL,
	response_body   bytea NOT NULL,
	created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);`

// columns are the columns each ledger table must have: a database that
// already holds a table of one of these names with another shape (another
// service's) is refused, not written to.
var columns = []struct {
	table string
	cols  []string
}{
	{"accounts", []string{"id", "currency", "opening", "balance", "credited"}},
	{"charges", []string{"seq", "account", "amount", "currency", "idempotency_key", "attempt_id", "replica", "created_at"}},
	{"idempotency_keys", []string{"key", "fingerprint", "response_status", "response_body", "created_at"}},
}

// Migrate creates the ledger tables if they do not exist, and refuses a
// database where a table of their name has another shape: its error names
// the table and a column it lacks, in one line.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, schema); err != nil {
		return fmt.Errorf("migrate ledger: %s", oneLine(err))
	}
	for _, t := range columns {
		rows, err := pool.Query(ctx, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1`, t.table)
		if err != nil {
			return fmt.Errorf("migrate ledger: %s", oneLine(err))
		}
		have, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("migrate ledger: %s", oneLine(err))
		}
		for _, c := range t.cols {
			if !slices.Contains(have, c) {
				return fmt.Errorf("migrate ledger: the database already has a table %s of another shape (no column %s): "+
					"give the ledger a database of its own", t.table, c)
			}
		}
	}
	return nil
}

// oneLine is err's text on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// Reset empties every ledger table and restarts the charge numbering.
func Reset(ctx context.Context, pool *pgxpool.Pool) error {
	const q = `TRUNCATE charges, idempotency_keys, accounts RESTART IDENTITY CASCADE`
	if _, err := pool.Exec(ctx, q); err != nil {
		return fmt.Errorf("reset ledger: %w", err)
	}
	return nil
}

// Open creates an account with an opening balance.
func Open(ctx context.Context, q Querier, id, currency string, opening int64) error {
	const sql = `INSERT INTO accounts (id, currency, opening, balance) VALUES ($1, $2, $3, $3)`
	if _, err := q.Exec(ctx, sql, id, currency, opening); err != nil {
		return fmt.Errorf("open account %s: %w", id, err)
	}
	return nil
}

// Debit is one charge to apply.
type Debit struct {
	Request   api.ChargeRequest
	Key       string // empty: no idempotency key
	AttemptID string
	Replica   int
}

// ChargeCTEs are the two steps of a charge as common table expressions,
// debit (the account's new balance) and ins (the charge row's seq), the
// debit only where cond holds: an SQL condition that may name CTEs written
// before these. Parameters $1..$6: account, amount, currency, key, attempt
// id, replica. A strategy that decides in SQL whether to charge puts its
// decision in cond and the charge in the same statement (one round trip).
func ChargeCTEs(cond string) string {
	return `debit AS (
	UPDATE accounts SET balance = balance - $2::bigint
	WHERE ` + cond + ` AND id = $1::text AND currency = $3::text AND balance >= $2::bigint RETURNING balance
), ins AS (
	INSERT INTO charges (account, amount, currency, idempotency_key, attempt_id, replica)
	SELECT $1::text, $2::bigint, $3::text, NULLIF($4::text, ''), NULLIF($5::text, ''), $6::int FROM debit
	RETURNING seq
)`
}

// SQLCharge debits the account and records the charge row in one
// statement (one round trip); no row when the debit matched nothing.
var SQLCharge = "WITH " + ChargeCTEs("true") + "\nSELECT ins.seq, debit.balance FROM ins, debit"

// ChargeArgs are the parameters of SQLCharge and ChargeCTEs for d.
func ChargeArgs(d Debit) []any {
	r := d.Request
	return []any{r.Account, r.Amount, r.Currency, d.Key, d.AttemptID, d.Replica}
}

// Charge debits the account and records the charge row, on q, in one
// statement. It returns ErrInsufficientFunds or ErrUnknownAccount for
// business refusals.
func Charge(ctx context.Context, q Querier, d Debit) (api.Charge, error) {
	var seq, balance *int64
	err := q.QueryRow(ctx, SQLCharge, ChargeArgs(d)...).Scan(&seq, &balance)
	if errors.Is(err, pgx.ErrNoRows) {
		err = nil
	}
	return Outcome(ctx, q, d, seq, balance, err)
}

// Outcome is the charge of d from what its debit and charge row returned
// (nil when the debit matched nothing: the refusal is then looked up on
// q) or err.
func Outcome(ctx context.Context, q Querier, d Debit, seq, balance *int64, err error) (api.Charge, error) {
	r := d.Request
	switch {
	case err != nil:
		return api.Charge{}, fmt.Errorf("charge %s: %w", r.Account, err)
	case seq == nil || balance == nil:
		return api.Charge{}, refusal(ctx, q, r.Account)
	}
	return api.Charge{ID: ChargeID(*seq), Account: r.Account, Amount: r.Amount,
		Currency: r.Currency, Balance: *balance}, nil
}

// Take debits the account, on q, and returns the balance left. Alone it is
// half a charge: Record writes the other half, and the two belong in one
// transaction (Charge does both in one statement; pg-split-debit commits
// them apart, on purpose). It returns ErrInsufficientFunds or
// ErrUnknownAccount for business refusals.
func Take(ctx context.Context, q Querier, r api.ChargeRequest) (balance int64, err error) {
	err = q.QueryRow(ctx,
		`UPDATE accounts SET balance = balance - $2 WHERE id = $1 AND currency = $3 AND balance >= $2 RETURNING balance`,
		r.Account, r.Amount, r.Currency).Scan(&balance)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, refusal(ctx, q, r.Account)
	}
	if err != nil {
		return 0, fmt.Errorf("debit %s: %w", r.Account, err)
	}
	return balance, nil
}

// Record writes the charge row of a debit Take made, on q; balance is what
// Take left.
func Record(ctx context.Context, q Querier, d Debit, balance int64) (api.Charge, error) {
	r := d.Request
	var seq int64
	err := q.QueryRow(ctx,
		`INSERT INTO charges (account, amount, currency, idempotency_key, attempt_id, replica)
		 VALUES ($1, $2, $3, NULLIF($4, ''), NULLIF($5, ''), $6) RETURNING seq`,
		r.Account, r.Amount, r.Currency, d.Key, d.AttemptID, d.Replica).Scan(&seq)
	if err != nil {
		return api.Charge{}, fmt.Errorf("record charge: %w", err)
	}
	return api.Charge{ID: ChargeID(seq), Account: r.Account, Amount: r.Amount,
		Currency: r.Currency, Balance: balance}, nil
}

// refusal tells an unknown account from one without enough money.
func refusal(ctx context.Context, q Querier, account string) error {
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM accounts WHERE id = $1`, account).Scan(&n); err != nil {
		return fmt.Errorf("look up account %s: %w", account, err)
	}
	if n == 0 {
		return ErrUnknownAccount
	}
	return ErrInsufficientFunds
}

// TopUp credits amount to an account: money paid in, not a charge. The
// account's credited total grows with its balance, so the balance stays
// its opening balance plus its credits minus its charges.
func TopUp(ctx context.Context, q Querier, id string, amount int64) (api.Account, error) {
	a := api.Account{ID: id}
	if amount <= 0 {
		return a, fmt.Errorf("top up %s: amount %d is not a positive number of minor units", id, amount)
	}
	err := q.QueryRow(ctx, `UPDATE accounts SET balance = balance + $2, credited = credited + $2 WHERE id = $1
		RETURNING balance, currency`, id, amount).Scan(&a.Balance, &a.Currency)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, ErrUnknownAccount
	}
	if err != nil {
		return a, fmt.Errorf("top up %s: %w", id, err)
	}
	return a, nil
}

// ChargeID names the charge with ledger sequence number seq.
func ChargeID(seq int64) string { return fmt.Sprintf("ch_%d", seq) }

// Balance reads one account.
func Balance(ctx context.Context, q Querier, id string) (api.Account, error) {
	a := api.Account{ID: id}
	err := q.QueryRow(ctx, `SELECT balance, currency FROM accounts WHERE id = $1`, id).Scan(&a.Balance, &a.Currency)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, ErrUnknownAccount
	}
	if err != nil {
		return a, fmt.Errorf("read account %s: %w", id, err)
	}
	return a, nil
}
