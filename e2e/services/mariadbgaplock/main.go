// Command mariadbgaplock is a payment service on MariaDB (InnoDB) written
// the way a team writes one from a blog post that says "lock the key with
// SELECT ... FOR UPDATE": one transaction (InnoDB's default REPEATABLE
// READ) reads the key's row FOR UPDATE (a stored response is replayed,
// another payload 422, a row without a response 409); finding none, it
// locks the account's row, calls the payment provider (150 to 400 ms),
// writes the charge and the balance, and inserts the key's row with the
// response before COMMIT. Every query runs on the request's context, and
// any database error is answered 503.
//
// Its mistake: a locking read of a row that does not exist locks the gap
// where it would be, and every duplicate gets the same gap lock. The
// first request's INSERT of the key then waits on a duplicate's gap lock
// while the duplicate waits on the account's row lock: InnoDB breaks the
// deadlock (error 1213) by rolling one back, and that request gets 503.
// It charges once; every duplicate in flight gets 503 instead of 409.
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
	f := shop.ParseFlags("mariadbgaplock", "150ms-400ms")
	db, err := shop.OpenMySQL(context.Background(), f.DSN)
	if err != nil {
		shop.Fail("mariadbgaplock", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f), points: shop.NewPoints(f.Failpoints)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("mariadbgaplock", mux)
}

var (
	errBusy     = errors.New("in flight")
	errMismatch = errors.New("key reused")
)

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
	case errors.Is(err, errBusy):
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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, nil, false, err
	}
	defer func() { _ = tx.Rollback() }()
	var st struct {
		fingerprint string
		status      sql.NullInt64
		response    sql.NullString
	}
	err = tx.QueryRowContext(ctx, "SELECT fingerprint, status, response FROM idempotency_keys WHERE `key` = ? FOR UPDATE", key).
		Scan(&st.fingerprint, &st.status, &st.response)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return 0, nil, false, err
	case st.fingerprint != fp:
		return 0, nil, false, errMismatch
	case st.status.Valid:
		return int(st.status.Int64), []byte(st.response.String), true, nil
	default:
		return 0, nil, false, errBusy
	}
	pts.At(ctx, "after-check", key)
	pts.At(ctx, "after-claim", key) // the key is "locked" FOR UPDATE
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
	if _, err := tx.ExecContext(ctx, "INSERT INTO idempotency_keys (`key`, fingerprint, status, response) VALUES (?, ?, ?, ?)",
		key, fp, status, string(body)); err != nil {
		return 0, nil, false, err
	}
	pts.At(ctx, "before-commit", key)
	if err := tx.Commit(); err != nil {
		return 0, nil, false, err
	}
	pts.At(ctx, "after-commit", key)
	return status, body, false, nil
}
