// Command jsonbstore is a payment service built on the idempotency-key
// table recipe, storing the response in a JSONB column: each charge's
// transaction starts by inserting the key (INSERT ... ON CONFLICT DO
// NOTHING) under a 50 ms lock_timeout, so a duplicate that meets the
// first request's uncommitted row gets 409 instead of waiting; the
// provider is called (150 to 400 ms), the charge written, and the key row
// completed with the status and the response before COMMIT. A key that is
// already complete replays its response as Postgres renders the JSONB
// value: the same JSON, not the same bytes. It is correct.
package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
)

type service struct {
	db       *pgxpool.Pool
	provider *shop.Provider
}

func main() {
	f := shop.ParseFlags("jsonbstore", "150ms-400ms")
	db, err := shop.Open(context.Background(), f.DSN, "jsonb")
	if err != nil {
		shop.Fail("jsonbstore", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("jsonbstore", mux)
}

// answer is what a charge request gets.
type answer struct {
	status   int
	body     []byte
	replayed bool
}

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
	var a answer
	err := pgx.BeginFunc(r.Context(), s.db, func(tx pgx.Tx) (err error) {
		a, err = s.inTx(r, tx, key, fp, c)
		return err
	})
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "55P03": // lock_not_available: the first request holds the key
		shop.Error(w, http.StatusConflict, "in_flight", "a request with this key is in flight")
	case err != nil:
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
	default:
		shop.Write(w, a.status, a.body, a.replayed)
	}
}

func (s *service) inTx(r *http.Request, tx pgx.Tx, key, fp string, c shop.Charge) (answer, error) {
	ctx := r.Context()
	if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '50ms'`); err != nil {
		return answer{}, err
	}
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint) VALUES ($1, $2) ON CONFLICT DO NOTHING`, key, fp)
	if err != nil {
		return answer{}, err
	}
	if tag.RowsAffected() == 0 { // the key is complete: replay it
		var storedFP string
		var a answer
		if err := tx.QueryRow(ctx, `SELECT fingerprint, status, response::text FROM idempotency_keys WHERE key = $1`, key).
			Scan(&storedFP, &a.status, &a.body); err != nil {
			return answer{}, err
		}
		if storedFP != fp {
			return answer{status: http.StatusUnprocessableEntity, body: []byte(`{"code":"key_reused","message":"another request used this key"}`)}, nil
		}
		a.replayed = true
		return a, nil
	}
	if err := s.provider.Call(ctx); err != nil {
		return answer{}, err
	}
	var id int64
	if err := tx.QueryRow(ctx, `INSERT INTO charges (idempotency_key, account, amount, currency, attempt_id)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, key, c.Account, c.Amount, c.Currency, r.Header.Get("X-Idemchaos-Attempt")).Scan(&id); err != nil {
		return answer{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, c.Account, c.Amount); err != nil {
		return answer{}, err
	}
	a := answer{status: http.StatusCreated, body: shop.Answer(id, c)}
	_, err = tx.Exec(ctx, `UPDATE idempotency_keys SET status = $2, response = $3::jsonb WHERE key = $1`, key, a.status, string(a.body))
	return a, err
}
