// Command accountlock is a payment service written the way a team writes
// one from the Postgres idempotency recipes: one transaction per charge
// that takes the key's advisory lock without waiting (a duplicate in
// flight gets 409 at once), looks the key up (a replay answers the stored
// response, another payload 422), locks the account's row, calls the
// payment provider (150 to 400 ms) and writes the charge, the balance and
// the key with its response before COMMIT. Every query runs on the
// request's context, so a client that hangs up cancels its charge. It is
// correct; its charges queue on the account's row lock.
package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
)

type service struct {
	db       *pgxpool.Pool
	provider *shop.Provider
}

func main() {
	f := shop.ParseFlags("accountlock", "150ms-400ms")
	db, err := shop.Open(context.Background(), f.DSN, "text")
	if err != nil {
		shop.Fail("accountlock", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("accountlock", mux)
}

var errBusy = errors.New("in flight")

func (s *service) charge(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		shop.Error(w, http.StatusBadRequest, "missing_key", "Idempotency-Key is required")
		return
	}
	c, fp, ok := shop.Read(w, r)
	if !ok {
		return
	}
	var status int
	var body []byte
	var replayed bool
	err := pgx.BeginFunc(r.Context(), s.db, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(r.Context(), `SELECT pg_try_advisory_xact_lock(hashtext($1))`, key).Scan(&locked); err != nil {
			return err
		}
		if !locked {
			return errBusy
		}
		var storedFP string
		err := tx.QueryRow(r.Context(), `SELECT fingerprint, status, response FROM idempotency_keys WHERE key = $1`, key).
			Scan(&storedFP, &status, &body)
		switch {
		case err == nil && storedFP != fp:
			status, body = http.StatusUnprocessableEntity, []byte(`{"code":"key_reused","message":"another request used this key"}`)
			return nil
		case err == nil:
			replayed = true
			return nil
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		var balance int64
		if err := tx.QueryRow(r.Context(), `SELECT balance FROM accounts WHERE id = $1 FOR UPDATE`, c.Account).Scan(&balance); err != nil {
			return err
		}
		if err := s.provider.Call(r.Context()); err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRow(r.Context(), `INSERT INTO charges (idempotency_key, account, amount, currency, attempt_id)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, key, c.Account, c.Amount, c.Currency, r.Header.Get("X-Idemchaos-Attempt")).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(r.Context(), `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, c.Account, c.Amount); err != nil {
			return err
		}
		status, body = http.StatusCreated, shop.Answer(id, c)
		_, err = tx.Exec(r.Context(), `INSERT INTO idempotency_keys (key, fingerprint, status, response) VALUES ($1, $2, $3, $4)`,
			key, fp, status, string(body))
		return err
	})
	switch {
	case errors.Is(err, errBusy):
		shop.Error(w, http.StatusConflict, "in_flight", "a request with this key is in flight")
	case err != nil:
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
	default:
		shop.Write(w, status, body, replayed && status/100 == 2)
	}
}
