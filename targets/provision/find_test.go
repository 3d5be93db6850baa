package provision

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// emptyFinder searches only an empty dir.
func emptyFinder(t *testing.T) *finder {
	empty := t.TempDir()
	return &finder{
		pgDirs:    func(context.Context) []string { return []string{empty} },
		redisPath: func() (string, error) { return redisIn(empty) },
		mariaDB:   func() (mariaDBBins, error) { return findMariaDB(nil, []string{empty}) },
	}
}

func TestMissingRedis(t *testing.T) {
	base := testBase(t)
	t0 := time.Now()
	_, err := Start(context.Background(), Config{NoDocker: true, TempDir: base, find: emptyFinder(t)})
	t.Logf("failed in %v", time.Since(t0).Round(time.Microsecond))
	assertOneLine(t, err)
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Service != "redis" || ue.Hint != "sudo apt-get install -y redis-server" {
		t.Fatalf("err = %#v; want an UnavailableError for redis", err)
	}
	want := "no redis available: Docker skipped (NoDocker), no redis-server binary found (PATH, /usr/bin, /usr/local/bin, /usr/sbin); install with: sudo apt-get install -y redis-server"
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	if !errors.Is(err, errNoRedisBin) {
		t.Error("errors.Is(err, errNoRedisBin) = false")
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
}

func TestMissingPostgres(t *testing.T) {
	base := testBase(t)
	_, err := Start(context.Background(), Config{RedisURL: shared.RedisURL, TempDir: base, find: emptyFinder(t)})
	assertOneLine(t, err)
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Service != "postgres" || ue.Hint != "sudo apt-get install -y postgresql" {
		t.Fatalf("err = %#v; want an UnavailableError for postgres", err)
	}
	want := "no postgres binaries found (PATH, pg_config --bindir, /usr/lib/postgresql/*/bin); install with: sudo apt-get install -y postgresql"
	if !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %q; want suffix %q", err, want)
	}
	if DockerAvailable(context.Background(), "") != nil {
		want = "no postgres available: no Docker engine, " + want
		if err.Error() != want {
			t.Errorf("err = %q\nwant  %q", err, want)
		}
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in %s: %v", base, left)
	}
}

// fakeBin creates dir with the named executables.
func fakeBin(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestPostgresBinSearchNewestFirst(t *testing.T) {
	root := t.TempDir()
	lib := filepath.Join(root, "lib", "postgresql")
	v96 := fakeBin(t, filepath.Join(lib, "9.6", "bin"), "initdb", "postgres")
	v13 := fakeBin(t, filepath.Join(lib, "13", "bin"), "initdb", "postgres")
	v15 := fakeBin(t, filepath.Join(lib, "15", "bin"), "initdb", "postgres")
	v16 := fakeBin(t, filepath.Join(lib, "16", "bin"), "initdb") // client-only: no server
	got := globNewestFirst(filepath.Join(lib, "*", "bin"))
	if want := []string{v16, v15, v13, v96}; !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	if dir, err := findPostgresBin(got); err != nil || dir != v15 {
		t.Errorf("findPostgresBin = %s, %v; want %s", dir, err, v15)
	}
	if _, err := findPostgresBin([]string{v16, root}); !errors.Is(err, errNoPostgresBin) {
		t.Errorf("no complete dir: err = %v", err)
	}
}

// Config.PGBinDir is the first candidate, and the environment is not read.
func TestPostgresBinSearchTriesPGBinDirFirst(t *testing.T) {
	custom := fakeBin(t, filepath.Join(t.TempDir(), "bin"), "initdb", "postgres")
	env := fakeBin(t, filepath.Join(t.TempDir(), "env"), "initdb", "postgres")
	t.Setenv("PG_BINDIR", env)
	st := newStarter(Config{PGBinDir: custom})
	dirs := st.find.pgDirs(context.Background())
	if len(dirs) == 0 || dirs[0] != custom {
		t.Fatalf("dirs = %v; want %s first", dirs, custom)
	}
	if dir, err := findPostgresBin(dirs); err != nil || dir != custom {
		t.Errorf("findPostgresBin = %s, %v; want %s", dir, err, custom)
	}
	if slices.Contains(dirs, env) {
		t.Errorf("dirs = %v; $PG_BINDIR %s must not be consulted", dirs, env)
	}
	if dirs := defaultPGDirs(context.Background(), ""); slices.Contains(dirs, env) {
		t.Errorf("no PGBinDir: dirs = %v; $PG_BINDIR must not be consulted", dirs)
	}
}

func TestDefaultSearchFindsInstalledServers(t *testing.T) {
	dir, err := findPostgresBin(defaultPGDirs(context.Background(), ""))
	if err != nil {
		t.Fatal((&UnavailableError{Service: "postgres", Hint: postgresInstallHint, Err: err}).Error())
	}
	t.Logf("postgres binaries: %s", dir)
	bin, err := defaultRedisPath()
	if err != nil {
		t.Fatal((&UnavailableError{Service: "redis", Hint: redisInstallHint, Err: err}).Error())
	}
	t.Logf("redis-server: %s", bin)
	maria, err := defaultMariaDBBins()
	if err != nil {
		t.Fatal((&UnavailableError{Service: "mysql", Hint: mysqlInstallHint, Err: err}).Error())
	}
	t.Logf("mariadb: %s, %s", maria.server, maria.install)
}

// mariadbd and mariadb-install-db are found each on its own: Debian has
// them in /usr/sbin and /usr/bin. Both are needed.
func TestMariaDBSearch(t *testing.T) {
	sbin := fakeBin(t, filepath.Join(t.TempDir(), "sbin"), "mariadbd")
	bin := fakeBin(t, filepath.Join(t.TempDir(), "bin"), "mariadb-install-db")
	got, err := findMariaDB(nil, []string{sbin, bin})
	want := mariaDBBins{server: filepath.Join(sbin, "mariadbd"), install: filepath.Join(bin, "mariadb-install-db")}
	if err != nil || got != want {
		t.Errorf("findMariaDB = %+v, %v; want %+v", got, err, want)
	}
	onPath := func(name string) (string, error) {
		if name == "mariadbd" {
			return "/opt/mariadb/bin/mariadbd", nil
		}
		return "", errors.New("not on PATH")
	}
	got, err = findMariaDB(onPath, []string{sbin, bin})
	if err != nil || got.server != "/opt/mariadb/bin/mariadbd" || got.install != want.install {
		t.Errorf("with mariadbd on PATH: findMariaDB = %+v, %v", got, err)
	}
	if _, err := findMariaDB(nil, []string{sbin}); !errors.Is(err, errNoMariaDBBin) {
		t.Errorf("no mariadb-install-db: err = %v; want errNoMariaDBBin", err)
	}
}
