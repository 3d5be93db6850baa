package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
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
		// MariaDB is for the innodb-* strategies only: never provisioned,
		// nor accepted, for another.
		"mysql for postgres": {"--strategy", "pg-tx", "--mysql-url", "mysql://root@127.0.0.1:1/pay"},
		"mysql url no url":   {"--strategy", "innodb-tx", "--mysql-url", "root@tcp(127.0.0.1:1)/pay"},
		"mysql url postgres": {"--strategy", "innodb-tx", "--mysql-url", "postgres://app:s3cret@127.0.0.1:1/pay"},
	} {
		t.Run(name, func(t *testing.T) {
			o := runOnce(t, args...)
			if o.code != exitUsage {
				t.Errorf("exit %d; want %d (stderr %q)", o.code, exitUsage, o.stderr)
			}
			if lines := strings.Split(strings.TrimRight(o.stderr, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "paymentd: ") {
				t.Errorf("stderr %q; want one line starting with paymentd:", o.stderr)
			}
			if name == "unknown strategy" && (!strings.Contains(o.stderr, "pg-tx") || !strings.Contains(o.stderr, "innodb-tx")) {
				t.Errorf("stderr %q does not list the known strategies", o.stderr)
			}
			if strings.HasPrefix(name, "mysql") && (!strings.Contains(o.stderr, "--mysql-url") || strings.Contains(o.stderr, "s3cret")) {
				t.Errorf("stderr %q does not name --mysql-url, or prints a password", o.stderr)
			}
		})
	}
}

// TestUnreachableStoresExit3: URLs nothing listens on are an environment
// error; so is a MariaDB that does not answer for a strategy on InnoDB.
func TestUnreachableStoresExit3(t *testing.T) {
	for name, args := range map[string][]string{
		"redis": {"--strategy", "pg-tx", "--redis-url", "redis://127.0.0.1:1/0",
			"--postgres-url", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable"},
		"postgres": {"--strategy", "pg-tx", "--redis-url", services.RedisURL,
			"--postgres-url", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable"},
		"mysql": {"--strategy", "innodb-tx", "--redis-url", services.RedisURL, "--postgres-url", services.PostgresURL,
			"--mysql-url", "mysql://root@127.0.0.1:1/pay"},
	} {
		t.Run(name, func(t *testing.T) {
			o := runOnce(t, args...)
			if o.code != exitEnv || strings.Count(o.stderr, "\n") != 1 || !strings.Contains(o.stderr, name) {
				t.Errorf("exit %d, stderr %q; want %d and one line naming %s", o.code, o.stderr, exitEnv, name)
			}
		})
	}
}

// TestHelpFits100Columns: every line of -h, a tab taken to the next
// multiple of 8, fits 100 columns; and it names the InnoDB strategies and
// --mysql-url.
func TestHelpFits100Columns(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseFlags([]string{"-h"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if n := columns(line); n > 100 {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	for _, want := range []string{"innodb-tx", "innodb-select-for-update", "-mysql-url"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-h does not name %s:\n%s", want, out.String())
		}
	}
}

// columns is how wide a line shows, tabs to the next multiple of 8.
func columns(line string) int {
	n := 0
	for _, r := range line {
		if r == '\t' {
			n += 8 - n%8
			continue
		}
		n++
	}
	return n
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
// names the table, before anything is served: a Postgres one, and a
// MariaDB one for a strategy on InnoDB.
func TestForeignTableRefused(t *testing.T) {
	for _, strategy := range []string{"pg-tx", "innodb-tx"} {
		t.Run(strategy, func(t *testing.T) {
			args, url := storeArgs(t, strategy)
			db := ledgerDB(t, url)
			if _, err := db.ExecContext(t.Context(), `CREATE TABLE idempotency_keys (k text, status int, response text)`); err != nil {
				t.Fatal(err)
			}
			o := runOnce(t, append(args, "--strategy", strategy)...)
			if o.code != exitEnv || strings.Count(o.stderr, "\n") != 1 || !strings.Contains(o.stderr, "table idempotency_keys of another shape") {
				t.Errorf("exit %d, stderr %q; want %d and one line naming the table", o.code, o.stderr, exitEnv)
			}
		})
	}
}
