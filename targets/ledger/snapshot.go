package ledger

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemchaos/idemchaos/sim/history"
)

// CountCharges returns the number of charge rows.
func CountCharges(ctx context.Context, q Querier) (int, error) {
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM charges`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count charges: %w", err)
	}
	return n, nil
}

// Snapshot reads every charge and account, in ledger order.
func Snapshot(ctx context.Context, q Querier) (history.Ledger, error) {
	var l history.Ledger
	rows, err := q.Query(ctx, `SELECT seq, account, amount, coalesce(idempotency_key, ''), coalesce(attempt_id, '')
		FROM charges ORDER BY seq`)
	if err != nil {
		return l, fmt.Errorf("read charges: %w", err)
	}
	l.Charges, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (history.Charge, error) {
		var c history.Charge
		err := r.Scan(&c.Seq, &c.Account, &c.Amount, &c.Key, &c.AttemptID)
		c.ID = ChargeID(c.Seq)
		return c, err
	})
	if err != nil {
		return l, fmt.Errorf("read charges: %w", err)
	}
	rows, err = q.Query(ctx, `SELECT id, opening, balance FROM accounts ORDER BY id`)
	if err != nil {
		return l, fmt.Errorf("read accounts: %w", err)
	}
	l.Accounts, err = pgx.CollectRows(rows, pgx.RowToStructByPos[history.Account])
	if err != nil {
		return l, fmt.Errorf("read accounts: %w", err)
	}
	return l, nil
}
