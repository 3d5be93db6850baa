package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/provision"
)

// TestAnnounceLedgerDSN: the ledger DSN paymentd prints for the user is the
// DSN itself when it holds no password (so it can be pasted), and redacted
// wherever it holds one.
func TestAnnounceLedgerDSN(t *testing.T) {
	c, err := parseFlags([]string{"--strategy", "pg-tx"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dsn, redis, want string }{
		{"postgres://postgres@127.0.0.1:5432/paymentd_1f0c9a2b?sslmode=disable", "redis://127.0.0.1:6379/0",
			"postgres://postgres@127.0.0.1:5432/paymentd_1f0c9a2b?sslmode=disable"},
		{"postgres://app:s3cret@db:5432/pay?sslmode=disable", "redis://:s3cret@cache:6379/0",
			"postgres://app:xxxxx@db:5432/pay?sslmode=disable"},
		{"postgres://app@db:5432/pay?sslmode=disable&password=s3cret", "rediss://u:s3cret@cache:6380/0",
			"postgres://app@db:5432/pay?sslmode=disable&password=xxxxx"},
		{"postgres://app:s3/cret@db:5432/pay", "redis://cache:6379/0", "postgres://app:xxxxx@db:5432/pay"},
	} {
		s := &stores{postgresDSN: tc.dsn, services: &provision.Services{RedisURL: tc.redis}}
		var out bytes.Buffer
		announce(&out, c, s, "127.0.0.1:8080")
		text := out.String()
		if strings.Contains(text, "s3cret") || strings.Contains(text, "cret@") {
			t.Errorf("%s: a password was printed:\n%s", tc.dsn, text)
		}
		if !strings.Contains(text, "paymentd: ledger: --ledger-url '"+tc.want+"' ") {
			t.Errorf("%s: ledger line does not carry %s:\n%s", tc.dsn, tc.want, text)
		}
	}
}

// TestAnnounceInnoDB: for a strategy on InnoDB the start line names
// MariaDB alone (Redis and Postgres are not its stores) and the ledger
// line its mysql:// URL, for idemchaos run --ledger-url; a password is
// redacted in both.
func TestAnnounceInnoDB(t *testing.T) {
	c, err := parseFlags([]string{"--strategy", "innodb-tx"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]string{
		"mysql://root@127.0.0.1:3306/idemchaos":    "mysql://root@127.0.0.1:3306/idemchaos",
		"mysql://app:s3cret@db:3306/pay?tls=false": "mysql://app:xxxxx@db:3306/pay?tls=false",
	} {
		s := &stores{mysqlURL: url, services: &provision.Services{RedisURL: "redis://127.0.0.1:6379/0",
			PostgresURL: "postgres://postgres@127.0.0.1:5432/postgres", MySQLURL: url}}
		var out bytes.Buffer
		announce(&out, c, s, "127.0.0.1:8080")
		text := out.String()
		if strings.Contains(text, "s3cret") || strings.Contains(text, "postgres") || strings.Contains(text, "redis") {
			t.Errorf("%s: a password, or a store it does not use, was printed:\n%s", url, text)
		}
		if !strings.Contains(text, "paymentd: strategy innodb-tx on http://127.0.0.1:8080 (mysql: "+want+")\n") {
			t.Errorf("%s: start line does not name MariaDB as %s:\n%s", url, want, text)
		}
		if !strings.Contains(text, "paymentd: ledger: --ledger-url '"+want+"' --ledger-query '"+ledgerQuery+"'\n") {
			t.Errorf("%s: ledger line does not carry %s:\n%s", url, want, text)
		}
	}
}
