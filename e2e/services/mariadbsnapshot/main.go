// Command mariadbsnapshot is a payment service on MariaDB (InnoDB) written
// from a blog post that checks the key, then inserts it: in one
// transaction at MySQL's default isolation (REPEATABLE READ) it looks the
// key up (a stored response is replayed, another payload 422), calls the
// payment provider (150 to 400 ms), locks the account's row (SELECT ...
// FOR UPDATE) for the balance, looks the key up again now that it holds
// the lock "so two requests cannot both charge", writes the charge and
// the balance, and stores the key with its response (INSERT ... ON
// DUPLICATE KEY UPDATE, so that a retry never fails on the key) before
// COMMIT. Every query runs on the request's context.
//
// It double charges: the second look-up is a plain read, which under
// REPEATABLE READ sees the transaction's snapshot, taken at the first
// read, not the key a duplicate committed while this one waited for the
// account; so duplicates sent together each charge.
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
}

func main() {
	f := shop.ParseFlags("mariadbsnapshot", "150ms-400ms")
	db, err := shop.OpenMySQL(context.Background(), f.DSN)
	if err != nil {
		shop.Fail("mariadbsnapshot", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("mariadbsnapshot", mux)
}

var errMismatch = errors.New("key reused")

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
	status, body, replayed, err := s.run(ctx, key, fp, c, r.Header.Get("X-Idemchaos-Attempt"))
	switch {
	case errors.Is(err, errMismatch):
		shop.Error(w, http.StatusUnprocessableEntity, "key_reused", "another request used this key")
	case err != nil:
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
	default:
		shop.Write(w, status, body, replayed)
	}
}

// run is the charge's transaction.
func (s *service) run(ctx context.Context, key, fp string, c shop.Charge, attempt string) (status int, body []byte, replayed bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, nil, false, err
	}
	defer func() { _ = tx.Rollback() }()
	check := func() (bool, error) {
		var storedFP string
		var storedStatus int
		var response string
		err := tx.QueryRowContext(ctx, "SELECT fingerprint, status, response FROM idempotency_keys WHERE `key` = ?", key).
			Scan(&storedFP, &storedStatus, &response)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return false, nil
		case err != nil:
			return false, err
		case storedFP != fp:
			return true, errMismatch
		}
		status, body, replayed = storedStatus, []byte(response), true
		return true, nil
	}
	if done, err := check(); done || err != nil {
		return status, body, replayed, err
	}
	if err := s.provider.Call(ctx); err != nil {
		return 0, nil, false, err
	}
	var balance int64
	if err := tx.QueryRowContext(ctx, `SELECT balance FROM accounts WHERE id = ? FOR UPDATE`, c.Account).Scan(&balance); err != nil {
		return 0, nil, false, err
	}
	if done, err := check(); done || err != nil { // "again, under the lock"
		return status, body, replayed, err
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
	if _, err := tx.ExecContext(ctx, "INSERT INTO idempotency_keys (`key`, fingerprint, status, response) VALUES (?, ?, ?, ?) "+
		"ON DUPLICATE KEY UPDATE status = VALUES(status), response = VALUES(response)", key, fp, status, string(body)); err != nil {
		return 0, nil, false, err
	}
	return status, body, false, tx.Commit()
}
