package provision

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClusterCacheSkipsInitdb: the first start keeps its fresh cluster in
// the cache, the second copies it (no initdb) and serves from it, owned by
// the account postgres runs as; nothing of the cache is in the temp dir.
func TestClusterCacheSkipsInitdb(t *testing.T) {
	t.Parallel()
	cache, base := t.TempDir(), testBase(t)
	start := func() string {
		var log bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := Start(ctx, Config{NoDocker: true, TempDir: base, Log: &log, ClusterCache: cache,
			RedisURL: shared.RedisURL})
		if err != nil {
			t.Fatal(err)
		}
		conn := pgConn(ctx, t, s.PostgresURL)
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("SELECT 1 = %d, %v", one, err)
		}
		conn.Close(ctx)
		checkOwner(t, base)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		t.Log(log.String())
		return log.String()
	}
	first := start()
	if !strings.Contains(first, "initdb done") {
		t.Fatalf("the first start ran no initdb:\n%s", first)
	}
	kept, _ := filepath.Glob(filepath.Join(cache, templatePrefix+"*", "PG_VERSION"))
	if len(kept) != 1 {
		t.Fatalf("cache holds %v after the first start; want one cluster", kept)
	}
	second := start()
	if strings.Contains(second, "initdb") || !strings.Contains(second, "cluster copied from") {
		t.Fatalf("the second start did not copy the cached cluster:\n%s", second)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("the temp dir holds %d entries after Close", len(left))
	}
}

// checkOwner: every data dir under base belongs to the account postgres
// runs as, mode 0700.
func checkOwner(t *testing.T, base string) {
	t.Helper()
	acct, err := postgresAccount()
	if err != nil {
		t.Fatal(err)
	}
	want := os.Getuid()
	if acct.cred != nil {
		want = acct.uid
	}
	datas, _ := filepath.Glob(filepath.Join(base, pgDirPrefix+"*", "data"))
	if len(datas) != 1 {
		t.Fatalf("data dirs %v", datas)
	}
	err = filepath.Walk(datas[0], func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if uid := int(info.Sys().(*syscall.Stat_t).Uid); uid != want {
			t.Errorf("%s owned by uid %d; want %d", path, uid, want)
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(datas[0]); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v, %v; want 0700", info.Mode().Perm(), err)
	}
}

func TestClusterCacheDir(t *testing.T) {
	for _, c := range []struct{ override, user, want string }{
		{"", "/home/u/.cache", "/home/u/.cache/idemchaos/clusters"},
		{"/elsewhere", "/home/u/.cache", "/elsewhere"},
		{"off", "/home/u/.cache", ""},
		{"", "", ""},
	} {
		if got := ClusterCacheDir(c.override, c.user); got != c.want {
			t.Errorf("ClusterCacheDir(%q, %q) = %q; want %q", c.override, c.user, got, c.want)
		}
	}
}

// TestClusterCacheSweepsAKilledCopy: a copy a killed start left half made
// is removed by the next start that keeps a cluster; a fresh one is not.
func TestClusterCacheSweepsAKilledCopy(t *testing.T) {
	cache := t.TempDir()
	old, fresh := filepath.Join(cache, tmpCopyPrefix+"old"), filepath.Join(cache, tmpCopyPrefix+"fresh")
	for _, d := range []string{old, fresh} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * orphanAge)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	sweepCopies(cache)
	if _, err := os.Stat(old); err == nil {
		t.Error("the killed start's copy is still there")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a copy being made was removed: %v", err)
	}
}
