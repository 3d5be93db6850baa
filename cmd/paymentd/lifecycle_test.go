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
// test's), serves, and on SIGINT exits 0 within seconds, leaving no process
// and no data directory behind.
func TestOwnStoresStoppedOnSIGINT(t *testing.T) {
	base := traversableTempDir(t)
	d := startDaemon(t, []string{"TMPDIR=" + base}, "--strategy", "redis-setnx", "--no-docker", "--listen", "127.0.0.1:0")
	pids := storePids(t, base)
	if len(pids) != 2 {
		t.Fatalf("found store pids %v in %s; want redis and postgres:\n%s", pids, base, d.output())
	}
	for name, pid := range pids {
		if !alive(pid) {
			t.Fatalf("%s (pid %d) is not running while paymentd serves", name, pid)
		}
	}
	if r := do(t, "POST", d.url+api.PathCharges, "own-stores-1", charge1250); r.status != http.StatusCreated {
		t.Fatalf("charge: %d %s", r.status, r.body)
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

// storePids reads the pids of the Redis and Postgres paymentd started under base.
func storePids(t *testing.T, base string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for name, pattern := range map[string]string{
		"redis":    "idemchaos-redis-*/redis.pid",
		"postgres": "idemchaos-pg-*/data/postmaster.pid",
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
