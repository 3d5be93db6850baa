package provision

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCloseStopsEverything(t *testing.T) {
	base := testBase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t0 := time.Now()
	s, err := Start(ctx, Config{NoDocker: true, TempDir: base})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("start (redis + initdb + postgres): %v", time.Since(t0).Round(time.Millisecond))
	if len(s.parts) != 2 {
		t.Fatalf("parts = %d, want 2", len(s.parts))
	}
	for _, p := range s.parts {
		if !alive(p.pid) {
			t.Errorf("%s pid %d not alive after Start", p.name, p.pid)
		}
		if _, err := os.Stat(p.dir); err != nil || filepath.Dir(p.dir) != base {
			t.Errorf("%s dir %s: %v; want it under %s", p.name, p.dir, err, base)
		}
	}
	groups := s.ProcessGroups()
	if len(groups) != 2 || groups["redis"] != s.parts[0].pid || groups["postgres"] != s.parts[1].pid {
		t.Errorf("ProcessGroups = %v; want redis %d and postgres %d", groups, s.parts[0].pid, s.parts[1].pid)
	}
	if removed, err := Sweep(base); err != nil || len(removed) != 0 {
		t.Errorf("Sweep of a live run removed %v (err %v); want nothing", removed, err)
	}

	t1 := time.Now()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("close: %v", time.Since(t1).Round(time.Millisecond))
	if err := checkGone(s.parts); err != nil {
		t.Error(err)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
	if procs := procsMentioning(t, base); len(procs) != 0 {
		t.Errorf("processes still running: %v", procs)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v; want nil", err)
	}
}

// cancelOn cancels when a progress line contains a word, after noting
// the pid of the redis-server already running.
type cancelOn struct {
	word     string
	base     string
	cancel   context.CancelFunc
	redisPid int
}

func (c *cancelOn) Write(b []byte) (int, error) {
	if strings.Contains(string(b), c.word) && c.redisPid == 0 {
		files, _ := filepath.Glob(filepath.Join(c.base, redisDirPrefix+"*", redisPidFile))
		if len(files) == 1 {
			c.redisPid, _ = readPid(files[0])
		}
		c.cancel()
	}
	return len(b), nil
}

func TestStartCancelledDuringInitdb(t *testing.T) {
	base := testBase(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := &cancelOn{word: "initdb", base: base, cancel: cancel}
	t0 := time.Now()
	s, err := Start(ctx, Config{NoDocker: true, TempDir: base, Log: w})
	if s != nil || err != context.Canceled {
		t.Fatalf("Start = %v, %v; want nil, context.Canceled", s, err)
	}
	t.Logf("cancelled start returned in %v", time.Since(t0).Round(time.Millisecond))
	if w.redisPid == 0 {
		t.Fatal("redis was not running when initdb began")
	}
	if err := syscall.Kill(-w.redisPid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("redis process group %d still exists: %v", w.redisPid, err)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
	if procs := procsMentioning(t, base); len(procs) != 0 {
		t.Errorf("processes still running: %v", procs)
	}
}

func TestStartWithCancelledContext(t *testing.T) {
	base := testBase(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Start(ctx, Config{NoDocker: true, TempDir: base})
	if s != nil || err != context.Canceled {
		t.Fatalf("Start = %v, %v; want nil, context.Canceled", s, err)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
}

func TestCloseNil(t *testing.T) {
	var s *Services
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestPostgresRefusesUntraversableBase(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root drops to another uid; checkTraversable is unit-tested below")
	}
	base := filepath.Join(t.TempDir(), "base") // t.TempDir's parent is 0700
	if err := os.Mkdir(base, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Start(ctx, Config{NoDocker: true, TempDir: base, RedisURL: shared.RedisURL})
	assertOneLine(t, err)
	if !strings.Contains(err.Error(), "cannot be traversed") {
		t.Fatalf("err = %v; want a traversal error", err)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
}

func TestCheckTraversable(t *testing.T) {
	open := testBase(t)
	inner := filepath.Join(open, "a", "b")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	if err := checkTraversable(inner, nobody, nobody); err != nil {
		t.Errorf("0755 chain: %v", err)
	}
	if err := os.Chmod(filepath.Join(open, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := checkTraversable(inner, nobody, nobody); err == nil {
		t.Error("0700 parent: want an error")
	}
	if err := checkTraversable(inner, os.Getuid(), os.Getgid()); err != nil {
		t.Errorf("owner through its own 0700 dir: %v", err)
	}
}
