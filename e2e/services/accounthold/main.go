// Command accounthold is a payment service that serializes each account's
// charges the way a wallet does: its transaction locks the account's row
// first (SELECT ... FOR UPDATE), then looks the key up (a completed key
// replays its stored response), calls the payment provider (150 to 400
// ms), writes the charge and the key with its response, and commits. It
// never charges twice, but a duplicate in flight waits on the account's
// row lock for the whole charge, then finds the key and replays it: a
// held duplicate, behind the account's lock rather than the key's.
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
	f := shop.ParseFlags("accounthold", "150ms-400ms")
	db, err := shop.Open(context.Background(), f.DSN, "text")
	if err != nil {
		shop.Fail("accounthold", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("accounthold", mux)
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
	var status int
	var body []byte
	var replayed bool
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT balance FROM accounts WHERE id = $1 FOR UPDATE`, c.Account); err != nil {
			return err
		}
		var storedFP string
		err := tx.QueryRow(ctx, `SELECT fingerprint, status, response FROM idempotency_keys WHERE key = $1`, key).Scan(&storedFP, &status, &body)
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
		if err := s.provider.Call(ctx); err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO charges (idempotency_key, account, amount, currency, attempt_id)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, key, c.Account, c.Amount, c.Currency, r.Header.Get("X-Idemchaos-Attempt")).Scan(&id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, c.Account, c.Amount); err != nil {
			return err
		}
		status, body = http.StatusCreated, shop.Answer(id, c)
		_, err = tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, status, response) VALUES ($1, $2, $3, $4)`, key, fp, status, string(body))
		return err
	})
	if err != nil {
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	shop.Write(w, status, body, replayed)
}
