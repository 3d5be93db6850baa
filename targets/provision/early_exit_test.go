package provision

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

func TestRedisEarlyExitQuotesLog(t *testing.T) {
	bin, err := defaultRedisPath()
	if err != nil {
		t.Fatal((&UnavailableError{Service: "redis", Hint: redisInstallHint, Err: err}).Error())
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	r := &localRedis{bin: bin, dir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err = r.serve(ctx, busy.Addr().(*net.TCPAddr).Port)
	assertOneLine(t, err)
	t.Log(err)
	if !errors.Is(err, errExited) || !strings.Contains(err.Error(), "in use") {
		t.Errorf("err = %v; want an early exit quoting 'Address already in use'", err)
	}
}

func TestPostgresEarlyExitQuotesLog(t *testing.T) {
	var dir string
	for _, p := range shared.parts {
		if p.name == "postgres" {
			dir = p.dir
		}
	}
	bin, err := findPostgresBin(defaultPGDirs(context.Background(), ""))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := postgresAccount()
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	// A second postmaster on the shared cluster refuses to start: its lock file is held.
	pg := &localPG{bin: bin, dir: dir, acct: acct}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err = pg.serve(ctx, port)
	assertOneLine(t, err)
	t.Log(err)
	if !errors.Is(err, errExited) || !strings.Contains(err.Error(), "postmaster.pid") {
		t.Errorf("err = %v; want an early exit quoting the lock file", err)
	}
}
