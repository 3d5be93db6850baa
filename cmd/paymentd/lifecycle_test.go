package main

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// TestOwnStoresStoppedOnSIGINT is the real path without URLs: paymentd
// starts its own Redis and Postgres (local binaries, in a temp dir of the
// test's), and no MariaDB for a strategy not on InnoDB, serves, and on
// SIGINT exits 0 within seconds, leaving no process and no data directory
// behind.
func TestOwnStoresStoppedOnSIGINT(t *testing.T) {
	base := traversableTempDir(t)
	d := startDaemon(t, []string{"TMPDIR=" + base}, "--strategy", "redis-setnx", "--no-docker", "--listen", "127.0.0.1:0")
	pids := storePids(t, base)
	if len(pids) != 2 || pids["redis"] == 0 || pids["postgres"] == 0 {
		t.Fatalf("found store pids %v in %s; want redis and postgres, no mysql:\n%s", pids, base, d.output())
	}
	servesThenStops(t, d, base, pids, "own-stores-1")
}

// TestOwnMariaDBStoppedOnSIGINT: for a strategy on InnoDB without
// --mysql-url paymentd starts its own MariaDB (local binaries, in a temp
// dir of the test's; Redis and Postgres are given, so it starts that one
// only), charges there, as the ledger it prints shows, and on SIGINT
// stops it, leaving no process and no data directory behind.
func TestOwnMariaDBStoppedOnSIGINT(t *testing.T) {
	base := traversableTempDir(t)
	d := startDaemon(t, []string{"TMPDIR=" + base}, "--strategy", "innodb-tx", "--no-docker", "--listen", "127.0.0.1:0",
		"--redis-url", services.RedisURL, "--postgres-url", services.PostgresURL)
	pids := storePids(t, base)
	if len(pids) != 1 || pids["mysql"] == 0 {
		t.Fatalf("found store pids %v in %s; want mysql alone:\n%s", pids, base, d.output())
	}
	servesThenStops(t, d, base, pids, "own-mariadb-1")
}

// servesThenStops checks that the stores run while paymentd serves a
// charge, which lands in the ledger it printed; then that SIGINT ends
// paymentd (exit 0 within 15 s) and every store process, and removes
// their data dirs.
func servesThenStops(t *testing.T, d *daemon, base string, pids map[string]int, key string) {
	t.Helper()
	for name, pid := range pids {
		if !alive(pid) {
			t.Fatalf("%s (pid %d) is not running while paymentd serves", name, pid)
		}
	}
	if r := do(t, "POST", d.url+api.PathCharges, key, charge1250); r.status != http.StatusCreated {
		t.Fatalf("charge: %d %s", r.status, r.body)
	}
	if rows := ledgerRows(t, printedLedgerURL(t, d)); len(rows) != 1 || rows[0].key != key {
		t.Errorf("the printed ledger holds %v; want the charge of %s", rows, key)
	}
	code, took := d.interrupt(t, 30*time.Second)
	if code != 0 || took > 15*time.Second {
		t.Errorf("SIGINT: exit %d after %v; want 0 within 15s:\n%s", code, took, d.output())
	}
	for name, pid := range pids {
		waitGone(t, name, pid)
	}
	if left, _ := filepath.Glob(filepath.Join(base, "idemchaos-*")); len(left) > 0 {
		t.Errorf("data dirs left behind: %v", left)
	}
}

// printedLedgerURL is the --ledger-url of paymentd's ledger line.
func printedLedgerURL(t *testing.T, d *daemon) string {
	t.Helper()
	_, rest, _ := strings.Cut(d.line("paymentd: ledger: "), "--ledger-url '")
	url, _, ok := strings.Cut(rest, "'")
	if !ok {
		t.Fatalf("no ledger URL printed:\n%s", d.output())
	}
	return url
}

// storePids reads the pids of the Redis, Postgres and MariaDB paymentd
// started under base.
func storePids(t *testing.T, base string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for name, pattern := range map[string]string{
		"redis":    "idemchaos-redis-*/redis.pid",
		"postgres": "idemchaos-pg-*/data/postmaster.pid",
		"mysql":    "idemchaos-mysql-*/mariadbd.pid",
	} {
		files, _ := filepath.Glob(filepath.Join(base, pattern))
		for _, f := range files {
			if pid := firstLineInt(f); pid > 0 {
				pids[name] = pid
			}
		}
	}
	return pids
}

func firstLineInt(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	n, _ := strconv.Atoi(strings.TrimSpace(first))
	return n
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func waitGone(t *testing.T, name string, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Errorf("%s (pid %d) still runs after paymentd exited", name, pid)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// traversableTempDir is a temp dir the postgres user can reach (t.TempDir's
// parent is 0700), removed when the test ends.
func traversableTempDir(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "paymentd-own-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	return base
}
