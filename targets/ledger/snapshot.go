package ledger

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// CountCharges returns the number of charge rows.
func CountCharges(ctx context.Context, q Querier) (int, error) {
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM charges`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count charges: %w", err)
	}
	return n, nil
}

// ChargeRow is one row of the charges table: money that really moved.
type ChargeRow struct {
	Seq       int64 // commit order as the ledger numbered it
	Account   string
	Amount    int64
	Key       string // "" for a charge made without a key
	AttemptID string
}

// ID is the charge id the API answers for the row.
func (r ChargeRow) ID() string { return ChargeID(r.Seq) }

// AccountRow is one account as it stands.
type AccountRow struct {
	ID       string
	Opening  int64
	Balance  int64
	Credited int64 // the top-ups paid in since the account was opened
}

// Snapshot is the whole ledger at one moment.
type Snapshot struct {
	Charges  []ChargeRow
	Accounts []AccountRow
}

// Read reads every charge and account, in ledger order.
func Read(ctx context.Context, q Querier) (Snapshot, error) {
	var l Snapshot
	rows, err := q.Query(ctx, `SELECT seq, account, amount, coalesce(idempotency_key, ''), coalesce(attempt_id, '')
		FROM charges ORDER BY seq`)
	if err != nil {
		return l, fmt.Errorf("read charges: %w", err)
	}
	l.Charges, err = pgx.CollectRows(rows, pgx.RowToStructByPos[ChargeRow])
	if err != nil {
		return l, fmt.Errorf("read charges: %w", err)
	}
	rows, err = q.Query(ctx, `SELECT id, opening, balance, credited FROM accounts ORDER BY id`)
	if err != nil {
		return l, fmt.Errorf("read accounts: %w", err)
	}
	l.Accounts, err = pgx.CollectRows(rows, pgx.RowToStructByPos[AccountRow])
	if err != nil {
		return l, fmt.Errorf("read accounts: %w", err)
	}
	return l, nil
}
