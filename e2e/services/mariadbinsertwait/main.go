// Command mariadbinsertwait is a payment service on MariaDB (InnoDB)
// written the way a team writes one from a blog post on idempotency keys
// in MySQL: one READ COMMITTED transaction claims the key by INSERT into
// the key table (its primary key makes the claim atomic), locks the
// account's row, calls the payment provider (150 to 400 ms), writes the
// charge and the balance, and completes the key's row with the response
// before COMMIT. A duplicate key error rolls back and answers from the
// key's row: its response replayed, another payload 422, no response yet
// 409. Every query runs on the request's context.
//
// Its mistake: a duplicate's INSERT meets the first request's uncommitted
// key row and waits on its lock until the first commits; it then gets the
// duplicate key error and replays the stored response. It never charges
// twice, but every duplicate in flight is held for the rest of the first
// request instead of getting 409 at once.
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
	f := shop.ParseFlags("mariadbinsertwait", "150ms-400ms")
	db, err := shop.OpenMySQL(context.Background(), f.DSN)
	if err != nil {
		shop.Fail("mariadbinsertwait", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f), points: shop.NewPoints(f.Failpoints)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("mariadbinsertwait", mux)
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
	status, body, err := s.run(ctx, pts, key, fp, c, r.Header.Get("X-Idemchaos-Attempt"))
	replayed := false
	if shop.IsMySQLError(err, shop.ErDupEntry) {
		status, body, err = s.stored(ctx, key, fp)
		replayed = err == nil
	}
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
func (s *service) run(ctx context.Context, pts *shop.Request, key, fp string, c shop.Charge, attempt string) (status int, body []byte, err error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "INSERT INTO idempotency_keys (`key`, fingerprint) VALUES (?, ?)", key, fp); err != nil {
		return 0, nil, err
	}
	pts.At(ctx, "after-check", key)
	pts.At(ctx, "after-claim", key)
	var balance int64
	if err := tx.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = ? FOR UPDATE`, c.Account).Scan(&balance); err != nil {
		return 0, nil, err
	}
	if err := s.provider.Call(ctx); err != nil {
		return 0, nil, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO charges (idempotency_key, account, amount, currency, attempt_id) VALUES (?, ?, ?, ?, ?)`,
		key, c.Account, c.Amount, c.Currency, attempt)
	if err != nil {
		return 0, nil, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET balance = balance - ? WHERE id = ?`, c.Amount, c.Account); err != nil {
		return 0, nil, err
	}
	status, body = http.StatusCreated, shop.Answer(id, c)
	if _, err := tx.ExecContext(ctx, "UPDATE idempotency_keys SET status = ?, response = ? WHERE `key` = ?", status, string(body), key); err != nil {
		return 0, nil, err
	}
	pts.At(ctx, "before-commit", key)
	if err := tx.Commit(); err != nil {
		return 0, nil, err
	}
	pts.At(ctx, "after-commit", key)
	return status, body, nil
}

// stored answers a duplicate from its key's row.
func (s *service) stored(ctx context.Context, key, fp string) (int, []byte, error) {
	var st struct {
		fingerprint string
		status      sql.NullInt64
		response    sql.NullString
	}
	err := s.db.QueryRowContext(ctx, "SELECT fingerprint, status, response FROM idempotency_keys WHERE `key` = ?", key).
		Scan(&st.fingerprint, &st.status, &st.response)
	switch {
	case err != nil:
		return 0, nil, err
	case st.fingerprint != fp:
		return 0, nil, errMismatch
	case !st.status.Valid:
		return 0, nil, errBusy
	}
	return int(st.status.Int64), []byte(st.response.String), nil
}
