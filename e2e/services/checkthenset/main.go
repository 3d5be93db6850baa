// Command checkthenset is a payment service whose idempotency middleware
// is the one many tutorials show: look the key up in Redis (GET); if it
// is absent, mark it in progress (SET with an expiry, no NX), charge
// (payment provider, then the ledger in Postgres) and store the response
// under the key; if it is in progress, 409; if it is done, replay it. The
// look-up and the mark are two commands: two requests of one key that
// both look before either marks both charge. The window is well under a
// millisecond. Duplicates sent together reach it together, unless the
// middlewares in front of it (authentication, rate limits, logging: the
// --middleware span, none by default) spread them apart: then few pairs
// of them meet in it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/e2e/services/internal/shop"
)

type service struct {
	db                   *pgxpool.Pool
	rdb                  *redis.Client
	middleware, provider *shop.Provider
}

// entry is a key's record in Redis.
type entry struct {
	State       string `json:"state"` // "in_progress" or "done"
	Fingerprint string `json:"fingerprint"`
	Status      int    `json:"status,omitempty"`
	Body        string `json:"body,omitempty"`
}

func main() {
	middleware := "0s-0s"
	f := shop.ParseFlags("checkthenset", "150ms-400ms", func(fs *flag.FlagSet) {
		fs.StringVar(&middleware, "middleware", middleware, "how long the middlewares in front of the idempotency layer take: MIN-MAX")
	})
	before, beforeMax, ok := shop.ParseSpan(middleware)
	if !ok {
		shop.Fail("checkthenset", errors.New("want --middleware MIN-MAX"))
	}
	db, err := shop.Open(context.Background(), f.DSN, "text")
	if err != nil {
		shop.Fail("checkthenset", err)
	}
	defer db.Close()
	opt, err := redis.ParseURL(f.Redis)
	if err != nil {
		shop.Fail("checkthenset", err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	s := &service{db: db, rdb: rdb, middleware: shop.NewWait(before, beforeMax), provider: shop.NewProvider(f)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", s.charge)
	shop.Serve("checkthenset", mux)
}

func (s *service) charge(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if s.middleware.Call(ctx) != nil {
		return // the client hung up
	}
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		shop.Error(w, http.StatusBadRequest, "missing_key", "Idempotency-Key is required")
		return
	}
	c, fp, ok := shop.Read(w, r)
	if !ok {
		return
	}
	var e entry
	raw, err := s.rdb.Get(ctx, "idem:"+key).Result()
	switch {
	case err == nil && json.Unmarshal([]byte(raw), &e) == nil && e.Fingerprint != fp:
		shop.Error(w, http.StatusUnprocessableEntity, "key_reused", "another request used this key")
		return
	case err == nil && e.State == "done":
		shop.Write(w, e.Status, []byte(e.Body), true)
		return
	case err == nil:
		shop.Error(w, http.StatusConflict, "in_flight", "a request with this key is in flight")
		return
	case err != redis.Nil:
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	mark, _ := json.Marshal(entry{State: "in_progress", Fingerprint: fp})
	if err := s.rdb.Set(ctx, "idem:"+key, mark, time.Minute).Err(); err != nil {
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	body, err := s.pay(r, key, c)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), "idem:"+key)
		shop.Error(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	done, _ := json.Marshal(entry{State: "done", Fingerprint: fp, Status: http.StatusCreated, Body: string(body)})
	s.rdb.Set(ctx, "idem:"+key, done, 24*time.Hour)
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
		return nil, err
	}
	return shop.Answer(id, c), nil
}
