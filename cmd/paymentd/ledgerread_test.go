package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql", for the InnoDB ledger
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for the Postgres ledger

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// storeArgs are the flags that give paymentd the shared stores for
// strategy, with a fresh database of the test's own for its ledger, and
// that database's URL: a Postgres one, or for a strategy on InnoDB a
// MariaDB one (--mysql-url; Redis and Postgres are given too, so that
// paymentd starts none of its own).
func storeArgs(t *testing.T, strategy string) ([]string, string) {
	t.Helper()
	info, err := design.Lookup(strategy)
	if err != nil {
		t.Fatal(err)
	}
	if info.MySQL {
		url := provisiontest.MySQLDatabase(t, services)
		return []string{"--redis-url", services.RedisURL, "--postgres-url", services.PostgresURL, "--mysql-url", url}, url
	}
	dsn := provisiontest.Database(t, services)
	return []string{"--redis-url", services.RedisURL, "--postgres-url", dsn,
		"--redis-prefix", fmt.Sprintf("paymentd-test-%d:", time.Now().UnixNano())}, dsn
}

// onInnoDB reports whether a ledger URL is a MariaDB one.
func onInnoDB(url string) bool { return strings.HasPrefix(url, "mysql://") }

// ledgerDB opens the ledger a URL names (postgres:// or mysql://) with
// database/sql, closed when the test ends.
func ledgerDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", url
	if onInnoDB(url) {
		var err error
		if dsn, err = provision.MySQLDSN(url); err != nil {
			t.Fatal(err)
		}
		driver = "mysql"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// ledgerRow is one row of ledgerQuery.
type ledgerRow struct {
	key, account, id string
	amount           int64
}

// ledgerRows reads the ledger with the query paymentd prints.
func ledgerRows(t *testing.T, url string) []ledgerRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := ledgerDB(t, url).QueryContext(ctx, ledgerQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []ledgerRow
	for rows.Next() {
		var key, attempt sql.NullString
		var r ledgerRow
		if err := rows.Scan(&key, &r.account, &r.amount, &r.id, &attempt); err != nil {
			t.Fatal(err)
		}
		r.key = key.String
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// credited is what the ledger says was paid into an account.
func credited(t *testing.T, url, account string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int64
	err := ledgerDB(t, url).QueryRowContext(ctx, "SELECT credited FROM accounts WHERE id = '"+account+"'").Scan(&n)
	if err != nil {
		t.Fatalf("credited of %s: %v", account, err)
	}
	return n
}
