// Package innodb holds the idempotency layers on MySQL's InnoDB (MariaDB
// here), beside the Postgres ones of targets/strategy: the correct design
// in the fewest round trips InnoDB allows (innodb-tx), and the mistakes
// InnoDB invites, each flawed on purpose. They charge in the InnoDB ledger
// (targets/ledger/innodb) on strategy.Deps.MySQL, a pool from that
// package's Open (several statements per round trip, arguments
// interpolated), and evaluate the failpoints at the same named points as
// the Postgres strategies.
//
// Each design is an exported design.Info (designs.go) with its builder,
// registered (strategy.Register) by the package's init function: the
// engine imports the package and deploys them on MariaDB.
//
// InnoDB facts they rest on, measured on MariaDB 10.11 (the package's
// tests hold them):
//   - an INSERT of a key that an open transaction inserted waits for that
//     transaction (a shared lock on the duplicate record), for
//     innodb_lock_wait_timeout (50 s by default); under
//     SET STATEMENT innodb_lock_wait_timeout=0 FOR INSERT it fails at once
//     (error 1205, in under a millisecond), and the transaction stays open;
//   - a duplicate of a committed key fails at once (1062); the lock it
//     leaves is on the record only (a primary key), no gap;
//   - when the inserting transaction rolls back, two INSERTs waiting on its
//     key both hold the shared lock and both want the exclusive one: InnoDB
//     kills one of them (1213, deadlock), the other inserts;
//   - a consistent read sees the snapshot of the transaction's first read
//     (REPEATABLE READ): INSERT IGNORE reports a key committed since (0
//     rows) that a SELECT in the same transaction still does not see, while
//     an UPDATE of it (a locking read) finds and overwrites it;
//   - a locking read (SELECT ... FOR UPDATE) that finds no row locks the
//     gap where the row would be; gap locks do not conflict with each
//     other, but an INSERT into the gap waits on every one of them;
//   - GET_LOCK belongs to the session, not the transaction: it survives
//     COMMIT and the return of the connection to the pool, and the same
//     session takes it again (it nests), another one does not.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package innodb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// InnoDB's error numbers the strategies tell apart.
const (
	errLockWait  = 1205 // ER_LOCK_WAIT_TIMEOUT
	errDeadlock  = 1213 // ER_LOCK_DEADLOCK
	errDuplicate = 1062 // ER_DUP_ENTRY
)

// isErr reports a server error of number n.
func isErr(err error, n uint16) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == n
}

// The statements on the key table (its column `key` is a reserved word).
const (
	sqlReadKey     = "SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE `key` = ?"
	sqlInsertKey   = "INSERT INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES (?, ?, 0, '')"
	sqlStoreAnswer = "UPDATE idempotency_keys SET response_status = ?, response_body = ? WHERE `key` = ?"
)

// session is the pooled connection one request runs on, in a transaction
// begun by hand (START TRANSACTION travels with the first statement).
type session struct {
	c    *sql.Conn
	open bool // a transaction may be open on it
}

func acquire(ctx context.Context, db *sql.DB) (*session, error) {
	if db == nil {
		return nil, errors.New("no InnoDB pool (strategy.Deps.MySQL)")
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire: %w", err)
	}
	return &session{c: c}, nil
}

// query runs statements on the session; begin says the first is START
// TRANSACTION.
func (s *session) query(ctx context.Context, begin bool, q string, args ...any) (*sql.Rows, error) {
	s.open = s.open || begin
	return s.c.QueryContext(ctx, q, args...)
}

func (s *session) exec(ctx context.Context, q string, args ...any) error {
	_, err := s.c.ExecContext(ctx, q, args...)
	return err
}

// commit sends stmt (with args) and COMMIT in one round trip.
func (s *session) commit(ctx context.Context, stmt string, args ...any) error {
	if err := s.exec(ctx, stmt+";\nCOMMIT", args...); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.open = false
	return nil
}

// end rolls back a transaction still open and returns the connection to
// the pool; a connection that cannot roll back is discarded (its server
// session, and the transaction, end with it).
func (s *session) end() {
	if s.open {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.c.ExecContext(ctx, "ROLLBACK"); err != nil {
			_ = s.c.Raw(func(any) error { return driver.ErrBadConn })
		}
	}
	_ = s.c.Close()
}

// keyRow is a key's row: its fingerprint and the answer stored with it
// (status 0: in progress).
type keyRow struct {
	fingerprint string
	resp        strategy.Response
}

// firstRow scans the first row of the first result set that has one (the
// statements before, START TRANSACTION say, have none); false when none
// has a row.
func firstRow(rows *sql.Rows, err error, dest ...any) (bool, error) {
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for !rows.Next() {
		if err := rows.Err(); err != nil {
			return false, err
		}
		if !rows.NextResultSet() {
			return false, rows.Err()
		}
	}
	if err := rows.Scan(dest...); err != nil {
		return false, err
	}
	return true, rows.Close()
}

// readKey runs q (ending with sqlReadKey) and scans the key's row.
func readKey(ctx context.Context, s *session, begin bool, q string, args ...any) (keyRow, bool, error) {
	var k keyRow
	rows, err := s.query(ctx, begin, q, args...)
	found, err := firstRow(rows, err, &k.fingerprint, &k.resp.Status, &k.resp.Body)
	if err != nil {
		return k, false, fmt.Errorf("read key: %w", err)
	}
	return k, found, nil
}

// answerStored answers from a key row: the profile's mismatch status on
// another payload (when checked), 409 while in progress, else the stored
// answer, replayed.
func answerStored(p api.Profile, k keyRow, r strategy.Request, checkFingerprint bool) strategy.Response {
	switch {
	case checkFingerprint && k.fingerprint != r.Fingerprint:
		return strategy.Failure(p.Mismatch, api.CodeMismatch, "this key was used with another request body")
	case k.resp.Status == 0:
		return inFlight(p)
	}
	resp := k.resp
	resp.Replayed = true
	return resp
}

func inFlight(p api.Profile) strategy.Response {
	return strategy.Failure(p.InFlight, api.CodeInFlight, "a request with this key is in flight; retry later")
}

func unavailable(err error) strategy.Response {
	return strategy.Failure(http.StatusServiceUnavailable, api.CodeStoreUnavailable, err.Error())
}

// debitOf is the ledger's debit of r.
func debitOf(r strategy.Request) ledger.Debit {
	return ledger.Debit{Request: r.Body, Key: r.Key, AttemptID: r.AttemptID, Replica: r.Replica}
}

// chargeAnswer turns a charge's outcome into the answer: 201 with the
// charge (charged), 402 or 404 for business refusals; an error is a
// failure, whose answer is a 5xx never stored.
func chargeAnswer(c api.Charge, err error, r strategy.Request) (resp strategy.Response, charged bool, _ error) {
	switch {
	case errors.Is(err, ledger.ErrInsufficientFunds):
		return strategy.Failure(http.StatusPaymentRequired, api.CodeInsufficientFunds, "insufficient funds"), false, nil
	case errors.Is(err, ledger.ErrUnknownAccount):
		return strategy.Failure(http.StatusNotFound, api.CodeNotFound, "unknown account "+r.Body.Account), false, nil
	case err != nil:
		return strategy.Response{}, false, err
	}
	return strategy.JSON(http.StatusCreated, c), true, nil
}

// charge runs the ledger's charge (one round trip) on the session's open
// transaction.
func charge(ctx context.Context, s *session, r strategy.Request) (strategy.Response, bool, error) {
	d := debitOf(r)
	seq, balance, err := innoledger.ScanCharge(s.query(ctx, false, innoledger.SQLCharge, innoledger.ChargeArgs(d)...))
	c, err := innoledger.Outcome(d, seq, balance, err)
	return chargeAnswer(c, err, r)
}

// noKey answers a POST without a key: the profile's refusal, or a plain
// charge without idempotency when the profile allows it.
func noKey(ctx context.Context, d strategy.Deps, r strategy.Request) strategy.Response {
	if d.Profile.MissingKey != 0 {
		return strategy.Failure(d.Profile.MissingKey, api.CodeMissingKey, "the Idempotency-Key header is required")
	}
	if d.MySQL == nil {
		return unavailable(errors.New("no InnoDB pool (strategy.Deps.MySQL)"))
	}
	c, err := innoledger.ChargeTx(ctx, d.MySQL, debitOf(r))
	resp, _, err := chargeAnswer(c, err, r)
	if err != nil {
		return unavailable(err)
	}
	return resp
}

// at evaluates failpoint p for r.
func at(ctx context.Context, d strategy.Deps, p api.Point, r strategy.Request) {
	d.Failpoints.Eval(ctx, p, r.Key, r.AttemptID, r.Replica)
}
