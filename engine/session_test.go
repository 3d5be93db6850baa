package engine_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// TestSessionDatabasesMadeAtOnce: a session's databases may be made from
// several goroutines at once (conform.Run deploys rows side by side);
// Close drops every one of them.
func TestSessionDatabasesMadeAtOnce(t *testing.T) {
	ctx := context.Background()
	// the shared stores, given by URL: closing the session stops nothing
	own, err := provision.Start(ctx, provision.Config{RedisURL: services.RedisURL, PostgresURL: services.PostgresURL})
	if err != nil {
		t.Fatal(err)
	}
	s := &engine.Session{Services: own}
	const n = 8
	names := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			dsn, err := s.NewDatabase(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			u, _ := url.Parse(dsn)
			names[i] = strings.TrimPrefix(u.Path, "/")
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, services.PostgresURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left []string
	if err := conn.QueryRow(ctx, "SELECT coalesce(array_agg(datname), '{}') FROM pg_database WHERE datname = ANY($1)", names).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("databases left after Close: %q", left)
	}
}
