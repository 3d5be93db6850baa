package strategytest

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// killWait bounds the wait for a killed MariaDB session to end, as
// pg_terminate_backend's timeout does on Postgres.
const killWait = 2 * time.Second

// innoKill holds the strategy's pool to one connection and reads that
// connection's id: the request runs on it (the case sends one request at a
// time). The kill is KILL CONNECTION of that id from the case's own pool,
// then a wait until the server has ended the session and rolled its
// transaction back (sessionGone).
func innoKill(ctx context.Context, fx *fixture) func(context.Context) error {
	fx.t.Helper()
	db := fx.inno.strategy
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		fx.t.Fatalf("the strategy's connection: %v", err)
	}
	var id int64
	err = c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id)
	_ = c.Close() // back to the pool, its only connection
	if err != nil {
		fx.t.Fatalf("the strategy's connection id: %v", err)
	}
	return func(ctx context.Context) error {
		if _, err := fx.inno.admin.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id)); err != nil {
			return fmt.Errorf("kill connection %d: %w", id, err)
		}
		return sessionGone(ctx, fx.inno.admin, id)
	}
}

// sessionGone waits, up to killWait, until connection id is no longer in
// the server's process list and the case's account row, which the killed
// request had debited, is free of its lock (a locking read that does not
// wait succeeds): the session ended and its transaction rolled back.
func sessionGone(ctx context.Context, db *sql.DB, id int64) error {
	ctx, cancel := context.WithTimeout(ctx, killWait)
	defer cancel()
	for {
		var n int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM information_schema.processlist WHERE id = ?", id).Scan(&n)
		if err == nil && n == 0 {
			err = unlocked(ctx, db)
		} else if err == nil {
			err = fmt.Errorf("connection %d still in the process list", id)
		}
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the killed session did not end within %s: %w", killWait, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// unlocked takes the case's account row's lock without waiting, in a
// statement of its own (autocommit: released at once).
func unlocked(ctx context.Context, db *sql.DB) error {
	var balance int64
	return db.QueryRowContext(ctx, "SELECT balance FROM accounts WHERE id = ? FOR UPDATE NOWAIT", account).Scan(&balance)
}
