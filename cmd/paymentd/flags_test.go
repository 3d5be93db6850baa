package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/jackc/pgx/v5"
)

// TestBadFlagsExit2 runs the binary: a usage error is exit 2 and one line.
func TestBadFlagsExit2(t *testing.T) {
	for name, args := range map[string][]string{
		"no strategy":      {},
		"unknown strategy": {"--strategy", "nope"},
		"unknown flag":     {"--strategy", "pg-tx", "--bogus"},
		"unknown profile":  {"--strategy", "pg-tx", "--profile", "paypal"},
		"bad accounts":     {"--strategy", "pg-tx", "--accounts", "acct-1=lots"},
		"zero claim ttl":   {"--strategy", "pg-tx", "--claim-ttl", "0s"},
		"bad duration":     {"--strategy", "pg-tx", "--key-ttl", "tomorrow"},
		"extra argument":   {"--strategy", "pg-tx", "serve"},
	} {
		t.Run(name, func(t *testing.T) {
			o := runOnce(t, args...)
			if o.code != exitUsage {
				t.Errorf("exit %d; want %d (stderr %q)", o.code, exitUsage, o.stderr)
			}
			if lines := strings.Split(strings.TrimRight(o.stderr, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "paymentd: ") {
				t.Errorf("stderr %q; want one line starting with paymentd:", o.stderr)
			}
			if name == "unknown strategy" && !strings.Contains(o.stderr, "pg-tx") {
				t.Errorf("stderr %q does not list the known strategies", o.stderr)
			}
		})
	}
}

// TestUnreachableStoresExit3: URLs nothing listens on are an environment error.
func TestUnreachableStoresExit3(t *testing.T) {
	o := runOnce(t, "--strategy", "pg-tx", "--redis-url", "redis://127.0.0.1:1/0",
		"--postgres-url", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable")
	if o.code != exitEnv || strings.Count(o.stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want %d and one line", o.code, o.stderr, exitEnv)
	}
}

func TestHelpDocumentsTheLedgerQuery(t *testing.T) {
	o := runOnce(t, "-h")
	if o.code != 0 || !strings.Contains(o.stdout, ledgerQuery) || !strings.Contains(o.stdout, "--ledger-url") {
		t.Errorf("-h: exit %d, stdout:\n%s", o.code, o.stdout)
	}
}

func TestParseAccounts(t *testing.T) {
	got, err := parseAccounts(" acct-1=1000000 , savings=0")
	if err != nil || len(got) != 2 || got[0] != (account{"acct-1", 1000000}) || got[1] != (account{"savings", 0}) {
		t.Errorf("parseAccounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "acct-1", "=5", "a=-1", "a=1.5", "a=1,a=2"} {
		if _, err := parseAccounts(bad); err == nil {
			t.Errorf("parseAccounts(%q) accepted", bad)
		}
	}
}

func TestDefaults(t *testing.T) {
	c, err := parseFlags([]string{"--strategy", "pg-tx"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c.listen != "127.0.0.1:8080" || c.profile.Name != api.IETF.Name || c.claimTTL != 5*time.Second ||
		c.keyTTL != 24*time.Hour || len(c.accounts) != 4 || c.currency != "EUR" {
		t.Errorf("defaults: %+v", c)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:80": true, "localhost:1": true, "127.3.2.1:9": true,
		"0.0.0.0:8080": false, "[::]:8080": false, "192.168.1.4:80": false, "nonsense": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v; want %v", addr, got, want)
		}
	}
}

// TestAnnounce: the start line redacts a password, a non-loopback address
// gets a warning, and the ready marker comes last.
func TestAnnounce(t *testing.T) {
	c, err := parseFlags([]string{"--strategy", "pg-tx"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	s := &stores{postgresDSN: "postgres://app:s3cret@db:5432/pay", services: &provision.Services{RedisURL: "redis://:pw@cache:6379/0"}}
	var out bytes.Buffer
	announce(&out, c, s, "0.0.0.0:8080")
	text := out.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if strings.Contains(text, "s3cret") || strings.Contains(text, ":pw@") {
		t.Errorf("a password was printed:\n%s", text)
	}
	if !strings.HasPrefix(lines[0], "paymentd: strategy pg-tx on http://0.0.0.0:8080 (postgres: postgres://app:xxxxx@db:5432/pay, redis: ") {
		t.Errorf("start line: %s", lines[0])
	}
	if !strings.Contains(text, "paymentd: warning: 0.0.0.0:8080 is not a loopback address") {
		t.Errorf("no warning for 0.0.0.0:\n%s", text)
	}
	if lines[len(lines)-1] != readyLine {
		t.Errorf("last line %q; want %q", lines[len(lines)-1], readyLine)
	}
}

// TestForeignTableRefused: a database that already holds another
// service's idempotency_keys table is refused at start, in one line that
// names the table, before anything is served.
func TestForeignTableRefused(t *testing.T) {
	ctx := t.Context()
	dsn, err := services.CreateDatabase(ctx, "paymentd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = services.DropDatabase(context.Background(), dsn) })
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `CREATE TABLE idempotency_keys (key text PRIMARY KEY, status int, response jsonb)`)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := runOnce(t, "--strategy", "pg-tx", "--redis-url", services.RedisURL, "--postgres-url", dsn)
	if o.code != exitEnv || strings.Count(o.stderr, "\n") != 1 || !strings.Contains(o.stderr, "table idempotency_keys of another shape") {
		t.Errorf("exit %d, stderr %q; want %d and one line naming the table", o.code, o.stderr, exitEnv)
	}
}
