package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/server"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// benchTarget is one replica of a strategy on its own store clients.
type benchTarget struct {
	addr string
	srv  *http.Server
	done chan struct{}
	log  *server.Log
	pool *pgxpool.Pool
	rdb  *redis.Client
}

// deploy starts the strategy's replica on addr (loopback).
func (b *bencher) deploy(ctx context.Context, name, prefix string, since func() time.Duration, addr string) (*benchTarget, error) {
	t := &benchTarget{log: &server.Log{}, done: make(chan struct{})}
	deps, err := b.storeClients(ctx, t)
	if err == nil {
		deps.Prefix, deps.Profile, deps.ClaimTTL, deps.KeyTTL = prefix, b.o.profile, benchClaimTTL, benchKeyTTL
		var st strategy.Strategy
		if st, err = strategy.New(name, deps); err == nil {
			err = t.listen(addr, server.New(server.Config{Strategy: st, Pool: deps.Pool, Since: since, Log: t.log}))
		}
	}
	if err != nil {
		t.closeStores()
		return nil, err
	}
	return t, nil
}

// storeClients opens the replica's pool (warmed: every connection open
// before the load starts) and Redis client, straight to the stores.
func (b *bencher) storeClients(ctx context.Context, t *benchTarget) (strategy.Deps, error) {
	cfg, err := pgxpool.ParseConfig(b.dsn)
	if err != nil {
		return strategy.Deps{}, fmt.Errorf("postgres dsn: %w", err)
	}
	cfg.MaxConns, cfg.ConnConfig.ConnectTimeout = benchPgConns, 2*time.Second
	if t.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return strategy.Deps{}, fmt.Errorf("postgres pool: %w", err)
	}
	if err := warm(ctx, t.pool); err != nil {
		return strategy.Deps{}, err
	}
	opts, err := redis.ParseURL(b.redisURL)
	if err != nil {
		return strategy.Deps{}, fmt.Errorf("redis url: %w", err)
	}
	opts.MaxRetries, opts.PoolSize = -1, benchRedisConns // a retried SET NX lies to its own sender
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = time.Second, time.Second, time.Second
	t.rdb = redis.NewClient(opts)
	return strategy.Deps{Pool: t.pool, Redis: t.rdb}, t.rdb.Ping(ctx).Err()
}

// warm opens every connection of the pool.
func warm(ctx context.Context, pool *pgxpool.Pool) error {
	conns := make([]*pgxpool.Conn, 0, benchPgConns)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for range benchPgConns {
		c, err := pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		conns = append(conns, c)
	}
	return nil
}

func (t *benchTarget) listen(addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	t.addr = ln.Addr().String()
	t.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		_ = t.srv.Serve(ln)
		close(t.done)
	}()
	return nil
}

func (t *benchTarget) route(int, string) (string, error) { return "http://" + t.addr, nil }

// close lets in-flight requests finish, then closes the store clients.
func (t *benchTarget) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := t.srv.Shutdown(ctx)
	if err != nil {
		err = t.srv.Close()
	}
	<-t.done
	t.closeStores()
	return err
}

func (t *benchTarget) closeStores() {
	if t.pool != nil {
		t.pool.Close()
	}
	if t.rdb != nil {
		_ = t.rdb.Close()
	}
}

// serveFor serves the first strategy's target for the duration (or until
// interrupted), for an outside load tool, then tells what the ledger holds.
func (b *bencher) serveFor(ctx context.Context, stdout io.Writer) error {
	name, prefix := b.o.strategies[0], fmt.Sprintf("ib:%s:serve:", b.runID)
	defer scenarios.DropKeys(b.rdb, prefix)
	if _, err := scenarios.PrepareLedger(ctx, b.ctl, load.NewGen(b.o.load).Accounts()); err != nil {
		return envError(err)
	}
	start := time.Now()
	t, err := b.deploy(ctx, name, prefix, func() time.Duration { return time.Since(start) }, b.o.serve)
	if err != nil {
		return envError(err)
	}
	fmt.Fprintf(stdout, "serving %s on http://%s%s for %s (accounts acct-1..acct-%d, %s); Ctrl-C stops\n",
		name, t.addr, api.PathCharges, b.o.load.Duration, b.o.load.Accounts, load.Currency)
	timer := time.NewTimer(b.o.load.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	if err := t.close(); err != nil {
		return envError(err)
	}
	l, err := ledger.Snapshot(context.WithoutCancel(ctx), b.ctl)
	if err != nil {
		return envError(err)
	}
	fmt.Fprintf(stdout, "%s: %d requests served, %d ledger charges, %d keys charged more than once\n",
		name, len(t.log.Entries()), len(l.Charges), doubleCharged(l.Charges))
	return nil
}

// doubleCharged counts the keys with more than one charge.
func doubleCharged(cs []history.Charge) int {
	per := map[string]int{}
	for _, c := range cs {
		if c.Key != "" {
			per[c.Account+"\x00"+c.Key]++
		}
	}
	n := 0
	for _, v := range per {
		if v > 1 {
			n++
		}
	}
	return n
}
