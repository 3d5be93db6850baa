package ledger_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// services is the real Postgres (and Redis) the project's provisioning
// started for this package; a missing server fails the run, never skips it.
var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services)) }

// freshPool connects to a database of its own for this test, not migrated.
func freshPool(t *testing.T) *pgxpool.Pool { return freshPoolOf(t, 0) }

// freshPoolOf is freshPool with at most maxConns connections (0: pgxpool's
// default).
func freshPoolOf(t *testing.T, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(provisiontest.Database(t, services))
	if err != nil {
		t.Fatal(err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close) // runs before the database is dropped
	return pool
}

// migratedPool is freshPool with the ledger tables created.
func migratedPool(t *testing.T) *pgxpool.Pool { return migratedPoolOf(t, 0) }

// migratedPoolOf is freshPoolOf with the ledger tables created.
func migratedPoolOf(t *testing.T, maxConns int32) *pgxpool.Pool {
	t.Helper()
	pool := freshPoolOf(t, maxConns)
	if err := ledger.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	return pool
}
