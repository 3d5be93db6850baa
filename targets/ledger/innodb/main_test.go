package innodb_test

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// services holds the real MariaDB the project's provisioning started for
// this package (and its Redis and Postgres); a missing server fails the
// run, never skips it.
var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services, provisiontest.WithMySQL)) }

// freshDB connects to a database of its own for this test, not migrated.
func freshDB(t *testing.T, maxConns int) *sql.DB {
	t.Helper()
	dsn, err := provision.MySQLDSN(provisiontest.MySQLDatabase(t, services))
	if err != nil {
		t.Fatal(err)
	}
	db, err := innodb.Open(dsn, maxConns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() }) // runs before the database is dropped
	return db
}

// migratedDB is freshDB with the ledger tables created.
func migratedDB(t *testing.T, maxConns int) *sql.DB {
	t.Helper()
	db := freshDB(t, maxConns)
	if err := innodb.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}
