package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql" // the test's own client to the ledger

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// mysqlLedger is a user's payments table on the real MariaDB, in a
// database of the test's own, with its own column names.
type mysqlLedger struct {
	url string
	db  *sql.DB
}

// mysqlLedgerQuery aliases the table's columns to the contract's.
const mysqlLedgerQuery = "SELECT reference AS idempotency_key, customer AS account, cents AS amount, CONCAT('ch_', id) AS id, attempt AS attempt_id FROM payments"

func newMySQLLedger(t *testing.T) mysqlLedger {
	t.Helper()
	url := provisiontest.MySQLDatabase(t, services)
	dsn, err := provision.MySQLDSN(url)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE payments (id BIGINT AUTO_INCREMENT PRIMARY KEY, reference VARCHAR(64) NULL,
		customer VARCHAR(32) NOT NULL, cents BIGINT NOT NULL, attempt VARCHAR(64) NULL, INDEX (reference)) ENGINE=InnoDB`); err != nil {
		t.Fatal(err)
	}
	return mysqlLedger{url: url, db: db}
}

// insert adds a charge; an empty key is NULL (a keyless charge).
func (l mysqlLedger) insert(t *testing.T, key, account string, amount int64, attempt string) {
	t.Helper()
	var k any
	if key != "" {
		k = key
	}
	if _, err := l.db.Exec(`INSERT INTO payments (reference, customer, cents, attempt) VALUES (?, ?, ?, ?)`, k, account, amount, attempt); err != nil {
		t.Fatal(err)
	}
}

func (l mysqlLedger) rows(t *testing.T) int {
	t.Helper()
	var n int
	if err := l.db.QueryRow(`SELECT COUNT(*) FROM payments`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func openLedger(t *testing.T, url, query string) engine.Ledger {
	t.Helper()
	l, err := engine.OpenLedger(context.Background(), url, query)
	if err != nil {
		t.Fatalf("open ledger: %v", err)
	}
	t.Cleanup(l.Close)
	return l
}

// TestMySQLLedgerReadsTheRunsRows: the user's query on a real MariaDB
// table, wrapped by the harness, gives back the rows under the run's keys
// and of its keyless attempts, every column the contract names, and none
// of the others: another key, a key in other letter case (which a
// case-insensitive collation matches), another run's keyless row.
func TestMySQLLedgerReadsTheRunsRows(t *testing.T) {
	ml := newMySQLLedger(t)
	const k1, k2 = "5f0c0d1e-0000-4000-8000-00000000000a", "5f0c0d1e-0000-4000-8000-00000000000b"
	ml.insert(t, k1, "acct-1", 100, "a1")
	ml.insert(t, "other-key", "acct-1", 5, "a2")
	ml.insert(t, k1, "acct-1", 100, "a3") // a double charge: both rows read
	ml.insert(t, strings.ToUpper(k1), "acct-3", 7, "a4")
	ml.insert(t, k2, "acct-2", 250, "a5")
	ml.insert(t, "", "acct-4", 30, "run-attempt")
	ml.insert(t, "", "acct-4", 31, "earlier-attempt")
	ml.insert(t, "another-runs-key", "acct-2", 9, "run-attempt") // attempt ids repeat from run to run
	l := openLedger(t, ml.url, mysqlLedgerQuery)
	if _, ok := l.(*engine.MySQLLedger); !ok {
		t.Fatalf("a mysql:// ledger opened as %T", l)
	}
	if info := l.Info(); !info.ChargeIDs || !info.AttemptIDs {
		t.Errorf("info %+v; want charge ids and attempt ids", info)
	}
	ctx := context.Background()
	got, err := engine.ReadCharges(ctx, l, []string{k1, k2, "5f0c0d1e-0000-4000-8000-00000000000c"}, []string{"run-attempt"})
	if err != nil {
		t.Fatal(err)
	}
	want := []history.Charge{
		{Seq: 1, ID: "ch_1", Key: k1, Account: "acct-1", Amount: 100, AttemptID: "a1"},
		{Seq: 2, ID: "ch_3", Key: k1, Account: "acct-1", Amount: 100, AttemptID: "a3"},
		{Seq: 3, ID: "ch_5", Key: k2, Account: "acct-2", Amount: 250, AttemptID: "a5"},
		{Seq: 4, ID: "ch_6", Account: "acct-4", Amount: 30, AttemptID: "run-attempt"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read\n%v\nwant\n%v", got, want)
	}
	// the reader's own filter: no row under another key, and no keyless
	// row among the keyed ones (the upper-case key may come back from a
	// case-insensitive collation: the run's reading leaves it out above)
	keyed, err := l.Charges(ctx, []string{k1, k2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range keyed {
		if !strings.EqualFold(c.Key, k1) && c.Key != k2 {
			t.Errorf("Charges gave back a row under %q", c.Key)
		}
	}
	if keyless, err := l.KeylessCharges(ctx, []string{"run-attempt"}); err != nil || len(keyless) != 1 || keyless[0].Amount != 30 {
		t.Errorf("keyless charges %v, %v; want the run's one", keyless, err)
	}
}

// TestMySQLLedgerReadsManyKeys: MySQL has no array parameter; the keys go
// in IN lists batch by batch, and a row under a key far past the first
// batch is read.
func TestMySQLLedgerReadsManyKeys(t *testing.T) {
	ml := newMySQLLedger(t)
	keys := make([]string, 2500)
	for i := range keys {
		keys[i] = fmt.Sprintf("key-%04d", i)
	}
	for _, i := range []int{0, 999, 1000, 2499} {
		ml.insert(t, keys[i], "acct-1", int64(i+1), "")
	}
	l := openLedger(t, ml.url, mysqlLedgerQuery)
	got, err := engine.ReadCharges(context.Background(), l, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, c := range got {
		read = append(read, c.Key)
	}
	if want := "key-0000 key-0999 key-1000 key-2499"; strings.Join(read, " ") != want {
		t.Errorf("read %q; want %q", read, want)
	}
}

// TestMySQLLedgerQueryColumnsChecked: a query that does not fit the
// contract is refused before anything runs, with what is wrong, as bad
// input (exit 2), in the words the Postgres ledger uses.
func TestMySQLLedgerQueryColumnsChecked(t *testing.T) {
	ml := newMySQLLedger(t)
	cases := map[string]string{
		"SELECT reference AS idempotency_key, customer AS account FROM payments":                                  "ledger query: no column amount (it returns: idempotency_key, account)",
		"SELECT reference AS idempotency_key, customer AS account, customer AS amount FROM payments":              "ledger query: column amount has type VARCHAR; want an integer number of minor units",
		"SELECT reference AS idempotency_key, customer AS account, cents AS amount FROM no_such_table":            "ledger query: ",
		"SELECT reference AS idempotency_key, customer AS account, cents AS amount FROM payments WHERE cents > ?": "ledger query: takes no parameters (?)",
	}
	for q, want := range cases {
		l, err := engine.OpenLedger(context.Background(), ml.url, q)
		var bad *engine.BadInputError
		if err == nil {
			l.Close()
		}
		t.Logf("%s: %v", q, err)
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want bad input, one line, with %q", q, err, want)
		}
		if strings.Contains(q, "no_such_table") && err != nil && !strings.Contains(err.Error(), "no_such_table") {
			t.Errorf("%s: %v; want the missing table named", q, err)
		}
	}
	// the contract's types: any integer type or DECIMAL, unsigned too
	for _, amount := range []string{"cents", "CAST(cents AS UNSIGNED)", "CAST(cents AS DECIMAL(12,0))", "CAST(cents AS INT)"} {
		openLedger(t, ml.url, "SELECT reference AS idempotency_key, customer AS account, "+amount+" AS amount FROM payments")
	}
}

// TestMySQLLedgerUnreachable: a MySQL ledger that cannot be reached is an
// environment error (exit 3), one line saying once why, its password
// never shown; a server that refuses the user, likewise.
func TestMySQLLedgerUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ml := newMySQLLedger(t)
	u, err := neturl.Parse(ml.url)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	for url, cause := range map[string]string{
		"mysql://me:s3cret@" + addr + "/payments":          "connection refused",
		"mariadb://nobody:s3cret@127.0.0.1:" + port + "/x": "Access denied",
	} {
		_, err := engine.OpenLedger(context.Background(), url, mysqlLedgerQuery)
		t.Logf("%v", err)
		var bad *engine.BadInputError
		switch {
		case err == nil:
			t.Errorf("%s: opened", url)
		case errors.As(err, &bad):
			t.Errorf("%s: %v is bad input; want an environment error", url, err)
		case !strings.Contains(err.Error(), "cannot connect") || strings.Count(err.Error(), cause) != 1 || strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: %q; want one line saying once it cannot connect: %s", url, err, cause)
		case strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: %q shows the password", url, err)
		}
	}
}

// TestOpenLedgerPicksTheEngineByScheme: mysql:// and mariadb:// open a
// MySQL ledger, postgres:// and postgresql:// a Postgres one; another
// scheme is bad input, one line, its password hidden.
func TestOpenLedgerPicksTheEngineByScheme(t *testing.T) {
	ml := newMySQLLedger(t)
	// a query only MySQL takes (backticks) and one only Postgres takes (::)
	myQuery := "SELECT `reference` AS idempotency_key, customer AS account, cents AS amount FROM payments"
	for _, url := range []string{ml.url, "mariadb" + strings.TrimPrefix(ml.url, "mysql"), "MySQL" + strings.TrimPrefix(ml.url, "mysql")} {
		if l, ok := openLedger(t, url, myQuery).(*engine.MySQLLedger); !ok {
			t.Errorf("%s opened %T", url, l)
		}
	}
	pgURL := provisiontest.Database(t, services)
	pgQuery := "SELECT 'k'::text AS idempotency_key, 'acct-1'::text AS account, 1::bigint AS amount"
	for _, url := range []string{pgURL, "postgresql" + strings.TrimPrefix(pgURL, "postgres")} {
		if l, ok := openLedger(t, url, pgQuery).(*engine.SQLLedger); !ok {
			t.Errorf("%s opened %T", url, l)
		}
	}
	_, err := engine.OpenLedger(context.Background(), "mongodb://me:s3cret@127.0.0.1:27017/pay", myQuery)
	var bad *engine.BadInputError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), `scheme "mongodb" not supported`) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("mongodb://: %v; want bad input naming the scheme, without the password", err)
	}
}
