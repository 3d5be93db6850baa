// Command inserthold is a payment service built on the recipe of the
// source text: one transaction that starts by inserting the key (INSERT
// ... ON CONFLICT DO NOTHING), calls the payment provider (150 ms), writes
// the charge and completes the key row with the response, then COMMIT. A
// duplicate's INSERT meets the first request's uncommitted key row and
// waits on it until the first commits; then it finds the row complete
// and replays it. It never charges twice, but every duplicate in flight
// is held for the whole charge instead of getting 409 at once.
package main

import (
	"context"
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
	f := shop.ParseFlags("inserthold", "140ms-160ms")
	db, err := shop.Open(context.Background(), f.DSN, "text")
	if err != nil {
		shop.Fail("inserthold", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("inserthold", mux)
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
		tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint) VALUES ($1, $2) ON CONFLICT DO NOTHING`, key, fp)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var storedFP string
			if err := tx.QueryRow(ctx, `SELECT fingerprint, status, response FROM idempotency_keys WHERE key = $1`, key).
				Scan(&storedFP, &status, &body); err != nil {
				return err
			}
			if storedFP != fp {
				status, body = http.StatusUnprocessableEntity, []byte(`{"code":"key_reused","message":"another request used this key"}`)
				return nil
			}
			replayed = true
			return nil
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
		_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET status = $2, response = $3 WHERE key = $1`, key, status, string(body))
		return err
	})
	if err != nil {
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	shop.Write(w, status, body, replayed)
}
