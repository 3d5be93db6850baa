package provision

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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
	assertBriefRetry(t, err)
}

// assertBriefRetry checks the line onFreePort prints when a start exits
// early: short enough for a 120-column terminal, the log left out, the
// taken port said, whatever wraps the error kept.
func assertBriefRetry(t *testing.T, exited error) {
	t.Helper()
	var out bytes.Buffer
	tries := 0
	_, _, err := onFreePort(context.Background(), "redis", 2, logger{&out}, func(int) (string, *part, error) {
		if tries++; tries == 1 {
			return "", nil, fmt.Errorf("redis-sentinel: %w", exited)
		}
		return "redis://ok", nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSuffix(out.String(), "\n")
	t.Log(line)
	if strings.Contains(line, "\n") || utf8.RuneCountInString(line) > 120 {
		t.Errorf("retry line is not one line of at most 120 columns: %q", line)
	}
	for _, want := range []string{"redis attempt 1: redis-sentinel: redis on port", "(port in use); trying a new port"} {
		if !strings.Contains(line, want) {
			t.Errorf("retry line %q does not say %q", line, want)
		}
	}
	if strings.Contains(line, "log:") {
		t.Errorf("retry line quotes the log: %q", line)
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
