// Command mariadbtx is a payment service on MariaDB (InnoDB) written from
// the MariaDB manual's advice for a claim that must not wait: one READ
// COMMITTED transaction per charge looks the key up (a stored response is
// replayed, another payload 422), then claims it by INSERT into the key
// table under SET STATEMENT innodb_lock_wait_timeout=0, so a duplicate
// whose first request holds the uncommitted key row fails at once (lock
// wait timeout: 409) instead of waiting on it, and one that comes after
// the first committed fails on the primary key and is answered from the
// row; then it locks the account's row (SELECT ... FOR UPDATE), calls the
// payment provider (150 to 400 ms) and writes the charge, the balance and
// the key's response before COMMIT. Every query runs on the request's
// context. It is correct in every order of two requests (explore); its
// charges queue on the account's row lock.
//
// With --failpoints it speaks idemchaos's failpoint protocol
// (docs/failpoints.md).
package main

import (
	"context"
	"database/sql"
	"errors"
	"net/http"

	_ "github.com/go-sql-driver/mysql"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
)

type service struct {
	db       *sql.DB
	provider *shop.Provider
	points   *shop.Points
}

func main() {
	f := shop.ParseFlags("mariadbtx", "150ms-400ms")
	db, err := shop.OpenMySQL(context.Background(), f.DSN)
	if err != nil {
		shop.Fail("mariadbtx", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f), points: shop.NewPoints(f.Failpoints)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("mariadbtx", mux)
}

var (
	errBusy     = errors.New("in flight")
	errMismatch = errors.New("key reused")
)

// stored is a key's row: its fingerprint and, once done, its response.
type stored struct {
	fingerprint string
	status      sql.NullInt64
	response    sql.NullString
}

func (s *service) charge(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		shop.Error(w, http.StatusBadRequest, "missing_key", "Idempotency-Key is required")
		return
	}
	c, fp, ok := shop.Read(w, r)
	if !ok {
		return
	}
	pts := s.points.Begin(r)
	status, body, replayed, err := s.run(ctx, pts, key, fp, c, r.Header.Get("X-Idemchaos-Attempt"))
	pts.End(ctx, key)
	switch {
	case errors.Is(err, errBusy), shop.IsMySQLError(err, shop.ErLockWaitTimeout, shop.ErLockDeadlock):
		shop.Error(w, http.StatusConflict, "in_flight", "a request with this key is in flight")
	case errors.Is(err, errMismatch):
		shop.Error(w, http.StatusUnprocessableEntity, "key_reused", "another request used this key")
	case err != nil:
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
	default:
		shop.Write(w, status, body, replayed)
	}
}

// run is the charge's transaction.
func (s *service) run(ctx context.Context, pts *shop.Request, key, fp string, c shop.Charge, attempt string) (status int, body []byte, replayed bool, err error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return 0, nil, false, err
	}
	defer func() { _ = tx.Rollback() }()
	// a completed key is replayed without a lock: replays never queue
	st, found, err := lookUp(ctx, tx, key)
	switch {
	case err != nil:
		return 0, nil, false, err
	case found && st.fingerprint != fp:
		return 0, nil, false, errMismatch
	case found && st.status.Valid:
		return int(st.status.Int64), []byte(st.response.String), true, nil
	case found:
		return 0, nil, false, errBusy
	}
	pts.At(ctx, "after-check", key)
	if _, err := tx.ExecContext(ctx, "SET STATEMENT innodb_lock_wait_timeout=0 FOR INSERT INTO idempotency_keys (`key`, fingerprint) VALUES (?, ?)", key, fp); err != nil {
		if shop.IsMySQLError(err, shop.ErDupEntry) { // the first committed since the look-up: its row answers
			_ = tx.Rollback()
			return s.stored(ctx, key, fp)
		}
		return 0, nil, false, err
	}
	pts.At(ctx, "after-claim", key)
	var balance int64
	if err := tx.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = ? FOR UPDATE`, c.Account).Scan(&balance); err != nil {
		return 0, nil, false, err
	}
	if err := s.provider.Call(ctx); err != nil {
		return 0, nil, false, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO charges (idempotency_key, account, amount, currency, attempt_id) VALUES (?, ?, ?, ?, ?)`,
		key, c.Account, c.Amount, c.Currency, attempt)
	if err != nil {
		return 0, nil, false, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, nil, false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - ? WHERE id = ?`, c.Amount, c.Account); err != nil {
		return 0, nil, false, err
	}
	status, body = http.StatusCreated, shop.Answer(id, c)
	if _, err := tx.ExecContext(ctx, "UPDATE idempotency_keys SET status = ?, response = ? WHERE `key` = ?", status, string(body), key); err != nil {
		return 0, nil, false, err
	}
	pts.At(ctx, "before-commit", key)
	if err := tx.Commit(); err != nil {
		return 0, nil, false, err
	}
	pts.At(ctx, "after-commit", key)
	return status, body, false, nil
}

// stored answers from a key's committed row.
func (s *service) stored(ctx context.Context, key, fp string) (int, []byte, bool, error) {
	var st stored
	err := s.db.QueryRowContext(ctx, "SELECT fingerprint, status, response FROM idempotency_keys WHERE `key` = ?", key).
		Scan(&st.fingerprint, &st.status, &st.response)
	switch {
	case err != nil:
		return 0, nil, false, err
	case st.fingerprint != fp:
		return 0, nil, false, errMismatch
	case !st.status.Valid:
		return 0, nil, false, errBusy
	}
	return int(st.status.Int64), []byte(st.response.String), true, nil
}

// lookUp reads the key's row.
func lookUp(ctx context.Context, tx *sql.Tx, key string) (st stored, found bool, err error) {
	err = tx.QueryRowContext(ctx, "SELECT fingerprint, status, response FROM idempotency_keys WHERE `key` = ?", key).
		Scan(&st.fingerprint, &st.status, &st.response)
	if errors.Is(err, sql.ErrNoRows) {
		return st, false, nil
	}
	return st, err == nil, err
}
