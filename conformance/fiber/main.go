// Command fiber is a conformance target: the charge of idemchaos's payment
// API (targets/ledger.Charge, the same charge paymentd makes) behind Fiber
// v2's middleware/idempotency, set up as its documentation shows: the
// middleware's defaults (header X-Idempotency-Key, a 36-character key,
// Lifetime 30 minutes, its in-process lock) with its default in-memory
// storage, or, with --redis-url, gofiber/storage/redis shared by every
// replica. Nothing of the middleware is changed.
//
// Around it, only what a service of its own adds: the charge handler speaks
// idemchaos's failpoint protocol at the points it really passes
// (docs/failpoints.md), an outer middleware sends the protocol's end once
// the idempotency middleware has stored the response, and marks a replay
// with Idempotent-Replayed through the middleware's own
// idempotency.IsFromCache. It prints "fiber: listening on http://ADDR"
// when it serves, and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/idempotency"
	"github.com/gofiber/storage/redis/v3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to serve on (loopback)")
	pgURL := flag.String("postgres-url", "", "the ledger's Postgres (migrated, accounts opened)")
	redisURL := flag.String("redis-url", "", "gofiber/storage/redis at this URL (default: the middleware's in-memory storage)")
	flag.Parse()
	if err := run(*listen, *pgURL, *redisURL); err != nil {
		fmt.Fprintln(os.Stderr, "fiber:", err)
		os.Exit(1)
	}
}

func run(listen, pgURL, redisURL string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if pgURL == "" {
		return errors.New("--postgres-url is required")
	}
	pool, err := pgxpool.New(ctx, pgURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	cfg := idempotency.Config{} // the documented defaults
	if redisURL != "" {
		store := redis.New(redis.Config{URL: redisURL})
		defer store.Close()
		cfg.Storage = store
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	fp := &remote.Client{}
	app.Use(func(c *fiber.Ctx) error { // outermost: the end comes after the response was stored
		uctx, end := fp.Begin(c.UserContext(), c.Get(remote.Header), c.Get(api.HeaderAttempt))
		c.SetUserContext(uctx)
		err := c.Next()
		end()
		return err
	})
	app.Use(func(c *fiber.Ctx) error {
		err := c.Next()
		if idempotency.IsFromCache(c) {
			c.Set(api.HeaderReplayed, "true")
		}
		return err
	})
	app.Use(idempotency.New(cfg))
	app.Post(api.PathCharges, chargeHandler(pool))
	app.Post(api.PathAccounts+":id"+api.TopUpSuffix, topUpHandler(pool))
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Printf("fiber: listening on http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- app.Listener(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return app.Shutdown()
	}
}
