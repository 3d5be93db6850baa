// Command expiringclaim is a payment service that claims each key in Redis
// (SET NX with a 500 ms expiry, "long enough for any charge"), calls the
// payment provider, writes the charge in Postgres and stores the response
// in Redis for a day; a duplicate that finds the claim gets 409, one that
// finds the response gets it replayed. Every call runs on the request's
// context. Its mistake: the provider takes longer than the claim lives
// (--provider, default 700 ms to 1.1 s), so a retry that comes after the
// claim expired, while the first charge still runs, claims the key again
// and charges twice.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
)

// claimTTL is how long a claim lives.
const claimTTL = 500 * time.Millisecond

type service struct {
	db       *pgxpool.Pool
	rdb      *redis.Client
	provider *shop.Provider
}

// stored is a completed key in Redis.
type stored struct {
	Fingerprint string `json:"fingerprint"`
	Status      int    `json:"status"`
	Body        string `json:"body"`
}

func main() {
	f := shop.ParseFlags("expiringclaim", "700ms-1100ms")
	db, err := shop.Open(context.Background(), f.DSN, "text")
	if err != nil {
		shop.Fail("expiringclaim", err)
	}
	defer db.Close()
	opt, err := redis.ParseURL(f.Redis)
	if err != nil {
		shop.Fail("expiringclaim", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	s := &service{db: db, rdb: rdb, provider: shop.NewProvider(f)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("expiringclaim", mux)
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
	if raw, err := s.rdb.Get(ctx, "idem:done:"+key).Result(); err == nil {
		var st stored
		if json.Unmarshal([]byte(raw), &st) == nil {
			if st.Fingerprint != fp {
				shop.Error(w, http.StatusUnprocessableEntity, "key_reused", "another request used this key")
				return
			}
			shop.Write(w, st.Status, []byte(st.Body), true)
			return
		}
	}
	won, err := s.rdb.SetNX(ctx, "idem:claim:"+key, fp, claimTTL).Result()
	switch {
	case err != nil:
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	case !won:
		shop.Error(w, http.StatusConflict, "in_flight", "a request with this key is in flight")
		return
	}
	body, err := s.pay(r, key, c)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), "idem:claim:"+key)
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	done, _ := json.Marshal(stored{Fingerprint: fp, Status: http.StatusCreated, Body: string(body)})
	s.rdb.Set(ctx, "idem:done:"+key, done, 24*time.Hour)
	shop.Write(w, http.StatusCreated, body, false)
}

// pay calls the provider and writes the charge.
func (s *service) pay(r *http.Request, key string, c shop.Charge) ([]byte, error) {
	ctx := r.Context()
	if err := s.provider.Call(ctx); err != nil {
		return nil, err
	}
	var id int64
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO charges (idempotency_key, account, amount, currency, attempt_id)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, key, c.Account, c.Amount, c.Currency, r.Header.Get("X-Idemchaos-Attempt")).Scan(&id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE accounts SET balance = balance - $2 WHERE id = $1`, c.Account, c.Amount)
		return err
	})
	if err != nil {
		return nil, errors.Join(errors.New("charge"), err)
	}
	return shop.Answer(id, c), nil
}
