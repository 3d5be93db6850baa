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
