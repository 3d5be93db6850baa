// Package innodb is the ledger of the payment API on MySQL's InnoDB
// (MariaDB here): the same accounts, charges and idempotency-key tables as
// the Postgres ledger (targets/ledger), the same operations and the same
// charge ids ("ch_N"), through database/sql and go-sql-driver/mysql. It is
// the ground truth of the InnoDB strategies (targets/strategy/innodb); Read
// returns the Postgres ledger's Snapshot, which the engine turns into the
// checker's history.Ledger as it does for Postgres.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package innodb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// Querier is what a ledger operation needs: a pool, a connection or a
// transaction (*sql.DB, *sql.Conn, *sql.Tx).
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Open opens a pool on a go-sql-driver DSN (provision.MySQLDSN makes one
// from a mysql:// URL) set up as the ledger and the strategies expect:
// arguments interpolated by the client (one round trip a statement, never
// a prepare first), several statements in one round trip (a strategy's
// START TRANSACTION travels with its claim, its response with its COMMIT),
// and at most maxConns connections (0: unbounded).
func Open(dsn string, maxConns int) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("open innodb ledger: %w", err)
	}
	cfg.InterpolateParams = true
	cfg.MultiStatements = true
	cfg.Logger = &mysql.NopLogger{} // a killed connection is an error returned, not a log line
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("open innodb ledger: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(max(maxConns, 2))
	return db, nil
}

// The tables. The idempotency key compares byte for byte (utf8mb4_bin:
// MariaDB's default collation would make "K" and "k" one key). The view
// charge_rows is the ledger as an external run reads it, as on Postgres.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS accounts (
	id       VARCHAR(191) NOT NULL PRIMARY KEY,
	currency VARCHAR(16) NOT NULL,
	opening  BIGINT NOT NULL,
	balance  BIGINT NOT NULL,
	credited BIGINT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	`CREATE TABLE IF NOT EXISTS charges (
	seq             BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
	account         VARCHAR(191) NOT NULL,
	amount          BIGINT NOT NULL,
	currency        VARCHAR(16) NOT NULL,
	idempotency_key VARCHAR(255) NULL,
	attempt_id      VARCHAR(255) NULL,
	replica         INT NOT NULL DEFAULT 0,
	created_at      TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	KEY charges_key (idempotency_key),
	CONSTRAINT charges_account FOREIGN KEY (account) REFERENCES accounts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	"CREATE TABLE IF NOT EXISTS idempotency_keys (\n" +
		"	`key`           VARCHAR(255) NOT NULL PRIMARY KEY,\n" +
		`	fingerprint     VARCHAR(128) NOT NULL,
	response_status INT NOT NULL,
	response_body   LONGBLOB NOT NULL,
	created_at      TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
}

// view is created once the tables are known to have their shape.
const view = `CREATE OR REPLACE VIEW charge_rows AS
	SELECT idempotency_key, account, amount, CONCAT('ch_', seq) AS id, attempt_id FROM charges`

// columns are the columns each table must have: a database that already
// holds a table of one of these names with another shape is refused.
var columns = []struct {
	table string
	cols  []string
}{
	{"accounts", []string{"id", "currency", "opening", "balance", "credited"}},
	{"charges", []string{"seq", "account", "amount", "currency", "idempotency_key", "attempt_id", "replica", "created_at"}},
	{"idempotency_keys", []string{"key", "fingerprint", "response_status", "response_body", "created_at"}},
}

// Migrate creates the ledger tables if they do not exist, and refuses a
// database where a table of their name has another shape.
func Migrate(ctx context.Context, db Querier) error {
	for _, stmt := range schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migrate innodb ledger: %s", oneLine(err))
		}
	}
	for _, t := range columns {
		for _, c := range t.cols {
			var n int
			err := db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.columns
				WHERE table_schema = DATABASE() AND table_name = ? AND column_name = ?`, t.table, c).Scan(&n)
			if err != nil {
				return fmt.Errorf("migrate innodb ledger: %s", oneLine(err))
			}
			if n == 0 {
				return fmt.Errorf("migrate innodb ledger: the database already has a table %s of another shape (no column %s): "+
					"give the ledger a database of its own", t.table, c)
			}
		}
	}
	if _, err := db.ExecContext(ctx, view); err != nil {
		return fmt.Errorf("migrate innodb ledger: %s", oneLine(err))
	}
	return nil
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// Reset empties every ledger table and restarts the charge numbering
// (TRUNCATE resets AUTO_INCREMENT; charges goes first, for its foreign key,
// which TRUNCATE of accounts would refuse: that one is a DELETE).
func Reset(ctx context.Context, db Querier) error {
	for _, stmt := range []string{`TRUNCATE TABLE charges`, `TRUNCATE TABLE idempotency_keys`, `DELETE FROM accounts`} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("reset innodb ledger: %w", err)
		}
	}
	return nil
}

// OpenAccount creates an account with an opening balance.
func OpenAccount(ctx context.Context, q Querier, id, currency string, opening int64) error {
	const stmt = `INSERT INTO accounts (id, currency, opening, balance) VALUES (?, ?, ?, ?)`
	if _, err := q.ExecContext(ctx, stmt, id, currency, opening, opening); err != nil {
		return fmt.Errorf("open account %s: %w", id, err)
	}
	return nil
}

// SQLCharge is a charge in one round trip, for a connection that sends
// several statements at once (Open's): the debit, the charge row only
// when the debit matched (ROW_COUNT() is the statement before's), then one
// row: the charge row's seq (NULL when nothing was charged) and the
// account's balance (NULL for an unknown account). Arguments: ChargeArgs.
// It must run in a transaction: the two writes are two statements.
const SQLCharge = `UPDATE accounts SET balance = balance - ? WHERE id = ? AND currency = ? AND balance >= ?;
INSERT INTO charges (account, amount, currency, idempotency_key, attempt_id, replica)
	SELECT ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ? FROM DUAL WHERE ROW_COUNT() = 1;
SELECT IF(ROW_COUNT() = 1, LAST_INSERT_ID(), NULL), (SELECT balance FROM accounts WHERE id = ?)`

// ChargeArgs are the arguments of SQLCharge for d.
func ChargeArgs(d ledger.Debit) []any {
	r := d.Request
	return []any{r.Amount, r.Account, r.Currency, r.Amount,
		r.Account, r.Amount, r.Currency, d.Key, d.AttemptID, d.Replica,
		r.Account}
}

// Charge debits the account and records the charge row, on q, which must
// be a transaction (or a connection inside one) of a pool from Open. It
// returns ledger.ErrInsufficientFunds or ledger.ErrUnknownAccount for
// business refusals.
func Charge(ctx context.Context, q Querier, d ledger.Debit) (api.Charge, error) {
	seq, balance, err := ScanCharge(q.QueryContext(ctx, SQLCharge, ChargeArgs(d)...))
	return Outcome(d, seq, balance, err)
}

// ChargeTx is Charge in a transaction of its own on db.
func ChargeTx(ctx context.Context, db *sql.DB, d ledger.Debit) (api.Charge, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return api.Charge{}, fmt.Errorf("charge %s: %w", d.Request.Account, err)
	}
	defer func() { _ = tx.Rollback() }() // a no-op once committed
	c, err := Charge(ctx, tx, d)
	if err != nil && !IsRefusal(err) {
		return c, err
	}
	if cerr := tx.Commit(); cerr != nil {
		return api.Charge{}, fmt.Errorf("charge %s: commit: %w", d.Request.Account, cerr)
	}
	return c, err
}

// IsRefusal reports a business refusal of a charge.
func IsRefusal(err error) bool {
	return errors.Is(err, ledger.ErrInsufficientFunds) || errors.Is(err, ledger.ErrUnknownAccount)
}

// ScanCharge reads what SQLCharge answers, from the result set that
// follows the debit's and the insert's (which have none).
func ScanCharge(rows *sql.Rows, err error) (seq, balance *int64, _ error) {
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
		if !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				return nil, nil, err
			}
			return nil, nil, errors.New("the charge answered no row")
		}
	}
	if err := rows.Scan(&seq, &balance); err != nil {
		return nil, nil, err
	}
	return seq, balance, rows.Close()
}

// Outcome is the charge of d from what SQLCharge answered: the charge,
// or the business refusal (no seq: an unknown account has no balance
// either), or err.
func Outcome(d ledger.Debit, seq, balance *int64, err error) (api.Charge, error) {
	r := d.Request
	switch {
	case err != nil:
		return api.Charge{}, fmt.Errorf("charge %s: %w", r.Account, err)
	case balance == nil:
		return api.Charge{}, ledger.ErrUnknownAccount
	case seq == nil:
		return api.Charge{}, ledger.ErrInsufficientFunds
	}
	return api.Charge{ID: ledger.ChargeID(*seq), Account: r.Account, Amount: r.Amount,
		Currency: r.Currency, Balance: *balance}, nil
}

// TopUp credits amount to an account: money paid in, not a charge.
func TopUp(ctx context.Context, db *sql.DB, id string, amount int64) (api.Account, error) {
	a := api.Account{ID: id}
	if amount <= 0 {
		return a, fmt.Errorf("top up %s: amount %d is not a positive number of minor units", id, amount)
	}
	res, err := db.ExecContext(ctx, `UPDATE accounts SET balance = balance + ?, credited = credited + ? WHERE id = ?`,
		amount, amount, id)
	if err != nil {
		return a, fmt.Errorf("top up %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return a, ledger.ErrUnknownAccount
	}
	return Balance(ctx, db, id)
}

// Accounts are the ledger's accounts on a pool, as the API's accounts
// routes read and credit them (targets/server's Accounts).
type Accounts struct{ DB *sql.DB }

// Balance reads one account.
func (a Accounts) Balance(ctx context.Context, id string) (api.Account, error) {
	return Balance(ctx, a.DB, id)
}

// TopUp credits amount to an account.
func (a Accounts) TopUp(ctx context.Context, id string, amount int64) (api.Account, error) {
	return TopUp(ctx, a.DB, id, amount)
}

// Balance reads one account.
func Balance(ctx context.Context, q Querier, id string) (api.Account, error) {
	a := api.Account{ID: id}
	err := q.QueryRowContext(ctx, `SELECT balance, currency FROM accounts WHERE id = ?`, id).Scan(&a.Balance, &a.Currency)
	if errors.Is(err, sql.ErrNoRows) {
		return a, ledger.ErrUnknownAccount
	}
	if err != nil {
		return a, fmt.Errorf("read account %s: %w", id, err)
	}
	return a, nil
}

// Read reads every charge and account, in ledger order: the ground truth,
// in the Postgres ledger's terms.
func Read(ctx context.Context, q Querier) (ledger.Snapshot, error) {
	var l ledger.Snapshot
	rows, err := q.QueryContext(ctx, `SELECT seq, account, amount, COALESCE(idempotency_key, ''), COALESCE(attempt_id, '')
		FROM charges ORDER BY seq`)
	if err != nil {
		return l, fmt.Errorf("read charges: %w", err)
	}
	for rows.Next() {
		var c ledger.ChargeRow
		if err := rows.Scan(&c.Seq, &c.Account, &c.Amount, &c.Key, &c.AttemptID); err != nil {
			rows.Close()
			return l, fmt.Errorf("read charges: %w", err)
		}
		l.Charges = append(l.Charges, c)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return l, fmt.Errorf("read charges: %w", err)
	}
	rows, err = q.QueryContext(ctx, `SELECT id, opening, balance, credited FROM accounts ORDER BY id`)
	if err != nil {
		return l, fmt.Errorf("read accounts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a ledger.AccountRow
		if err := rows.Scan(&a.ID, &a.Opening, &a.Balance, &a.Credited); err != nil {
			return l, fmt.Errorf("read accounts: %w", err)
		}
		l.Accounts = append(l.Accounts, a)
	}
	return l, rows.Err()
}

// CountCharges returns the number of charge rows.
func CountCharges(ctx context.Context, q Querier) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM charges`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count charges: %w", err)
	}
	return n, nil
}
