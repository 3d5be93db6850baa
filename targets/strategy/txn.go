package strategy

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// txn is one Postgres transaction on a pooled connection that spends no
// round trip of its own: BEGIN (and the prelude) travel in one pipeline
// with the first statement, and the statements queued with atCommit travel
// with the COMMIT. It is a ledger.Querier, so the ledger's statements run
// in it unchanged.
//
// A transaction of pg-tx for a fresh key is thus two round trips (the
// claim, then the read of the key row, the charge and the stored response
// in one statement; the commit) where one statement per round trip took
// eight.
type txn struct {
	conn *pgxpool.Conn
	// prelude runs right after BEGIN in the same pipeline, e.g.
	// SET LOCAL synchronous_commit = off.
	prelude []string
	begun   bool
	tail    pgx.Batch // sent with the COMMIT
}

func beginTxn(ctx context.Context, pool *pgxpool.Pool, prelude ...string) (*txn, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	return &txn{conn: conn, prelude: prelude}, nil
}

// opening is BEGIN and the prelude when the transaction has not begun yet.
func (t *txn) opening() []*pgx.QueuedQuery {
	if t.begun {
		return nil
	}
	t.begun = true
	var b pgx.Batch
	b.Queue("BEGIN").Exec(ignoreTag)
	for _, sql := range t.prelude {
		b.Queue(sql).Exec(ignoreTag)
	}
	return b.QueuedQueries
}

// send runs b's statements (their callbacks see the results) in one round
// trip, after BEGIN if this is the first.
func (t *txn) send(ctx context.Context, b *pgx.Batch) error {
	all := pgx.Batch{QueuedQueries: append(t.opening(), b.QueuedQueries...)}
	return t.conn.SendBatch(ctx, &all).Close()
}

// Exec runs one statement in the transaction.
func (t *txn) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	var tag pgconn.CommandTag
	var b pgx.Batch
	b.Queue(sql, args...).Exec(func(ct pgconn.CommandTag) error { tag = ct; return nil })
	return tag, t.send(ctx, &b)
}

// QueryRow runs one statement in the transaction; Scan reports its error.
func (t *txn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.begun {
		return t.conn.QueryRow(ctx, sql, args...)
	}
	return pipelinedRow{t: t, ctx: ctx, sql: sql, args: args}
}

// Query runs one statement in the transaction (BEGIN first, on its own:
// no caller of the pipelined paths reads rows).
func (t *txn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if !t.begun {
		if err := t.send(ctx, &pgx.Batch{}); err != nil {
			return nil, err
		}
	}
	return t.conn.Query(ctx, sql, args...)
}

// pipelinedRow sends BEGIN and its statement when it is scanned.
type pipelinedRow struct {
	t    *txn
	ctx  context.Context
	sql  string
	args []any
}

func (r pipelinedRow) Scan(dest ...any) error {
	var scanErr error
	var b pgx.Batch
	b.Queue(r.sql, r.args...).QueryRow(func(row pgx.Row) error { scanErr = row.Scan(dest...); return nil })
	if err := r.t.send(r.ctx, &b); err != nil {
		return err
	}
	return scanErr
}

// atCommit queues a statement to run just before the COMMIT, in the same
// round trip; its error is the commit's.
func (t *txn) atCommit(sql string, args ...any) {
	t.tail.Queue(sql, args...).Exec(ignoreTag)
}

// prepareCommit prepares what the commit will send (the queued statements
// and COMMIT) where the connection has not yet: pgx would otherwise spend
// that round trip inside commit, before the COMMIT leaves. With it done
// first, the before-commit point falls right before the round trip that
// carries the COMMIT; it costs a round trip only the first time a
// connection commits these statements, as pgx's own would.
func (t *txn) prepareCommit(ctx context.Context) error {
	c := t.conn.Conn()
	prepare := func(sql string) error {
		if _, err := c.Prepare(ctx, sql, sql); err != nil {
			return fmt.Errorf("commit: prepare: %w", err)
		}
		return nil
	}
	for _, q := range t.tail.QueuedQueries {
		if err := prepare(q.SQL); err != nil {
			return err
		}
	}
	return prepare("COMMIT")
}

// commit sends the queued statements and COMMIT in one round trip.
func (t *txn) commit(ctx context.Context) error {
	var tag pgconn.CommandTag
	t.tail.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error { tag = ct; return nil })
	if err := t.send(ctx, &t.tail); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if tag.String() == "ROLLBACK" {
		return fmt.Errorf("commit: %w", pgx.ErrTxCommitRollback)
	}
	return nil
}

// release ends the transaction if it is still open and returns the
// connection; the pool drops a connection left in a transaction.
func (t *txn) release(ctx context.Context) {
	if t.conn.Conn().PgConn().TxStatus() != 'I' && !t.conn.Conn().IsClosed() {
		_, _ = t.conn.Exec(ctx, "ROLLBACK")
	}
	t.conn.Release()
}

// ignoreTag is the result callback of a statement whose only outcome is
// its error (which the batch returns).
func ignoreTag(pgconn.CommandTag) error { return nil }
