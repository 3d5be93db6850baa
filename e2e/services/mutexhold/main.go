// Command mutexhold is a payment service that guards each key with an
// in-process mutex, as a team does when "only one request per key may run
// at a time": a request takes its key's mutex, looks the key up (a
// completed key replays its stored response), and otherwise charges in a
// transaction that locks the account's row and calls the payment provider
// (about 400 ms). It never charges twice, but a duplicate sent while the
// first request runs waits on the mutex for the whole charge, then gets
// the replay: a held duplicate, where the contract wants 409 at once.
package main

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
)

type service struct {
	db       *pgxpool.Pool
	provider *shop.Provider
	mu       sync.Mutex
	keys     map[string]*sync.Mutex
}

func main() {
	f := shop.ParseFlags("mutexhold", "350ms-450ms")
	db, err := shop.Open(context.Background(), f.DSN, "text")
	if err != nil {
		shop.Fail("mutexhold", err)
	}
	defer db.Close()
	s := &service{db: db, provider: shop.NewProvider(f), keys: map[string]*sync.Mutex{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("mutexhold", mux)
}

// lock takes key's mutex and returns its unlock.
func (s *service) lock(key string) func() {
	s.mu.Lock()
	m, ok := s.keys[key]
	if !ok {
		m = &sync.Mutex{}
		s.keys[key] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
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
	defer s.lock(key)()
	var storedFP string
	var status int
	var body []byte
	err := s.db.QueryRow(ctx, `SELECT fingerprint, status, response FROM idempotency_keys WHERE key = $1`, key).Scan(&storedFP, &status, &body)
	switch {
	case err == nil && storedFP != fp:
		shop.Error(w, http.StatusUnprocessableEntity, "key_reused", "another request used this key")
		return
	case err == nil:
		shop.Write(w, status, body, true)
		return
	case !errors.Is(err, pgx.ErrNoRows):
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT balance FROM accounts WHERE id = $1 FOR UPDATE`, c.Account); err != nil {
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
		_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (key, fingerprint, status, response) VALUES ($1, $2, $3, $4)`, key, fp, status, string(body))
		return err
	})
	if err != nil {
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	shop.Write(w, status, body, false)
}
