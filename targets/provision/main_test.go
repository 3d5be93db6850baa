package provision

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shared is one set of local services for the whole package.
var shared *Services

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	var log io.Writer
	if testing.Verbose() {
		log = os.Stderr
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t0 := time.Now()
	s, err := Start(ctx, Config{NoDocker: true, Log: log})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "provision: cannot start the shared services: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "shared services (redis %s, postgres %s) up in %v\n",
		s.RedisSource, s.PostgresSource, time.Since(t0).Round(time.Millisecond))
	shared = s
	code := m.Run()
	if err := s.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "provision: close shared services: %v\n", err)
		code = 1
	}
	if err := checkGone(s.parts); err != nil {
		fmt.Fprintf(os.Stderr, "provision: %v\n", err)
		code = 1
	}
	return code
}

// checkGone fails when a part's process group or dir still exists.
func checkGone(parts []*part) error {
	var errs []error
	for _, p := range parts {
		if p.pid != 0 {
			if err := syscall.Kill(-p.pid, 0); !errors.Is(err, syscall.ESRCH) {
				errs = append(errs, fmt.Errorf("%s process group %d still exists (kill: %v)", p.name, p.pid, err))
			}
		}
		if p.dir != "" {
			if _, err := os.Stat(p.dir); !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("%s dir %s still exists", p.name, p.dir))
			}
		}
	}
	return errors.Join(errs...)
}

// testBase returns a fresh base dir under os.TempDir() that the postgres
// user can traverse (t.TempDir's parent is 0700).
func testBase(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "idemchaos-test-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// procsMentioning lists live processes whose command line contains s.
func procsMentioning(t *testing.T, s string) []string {
	t.Helper()
	matches, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			continue // exited meanwhile
		}
		if line := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(line, s) {
			found = append(found, filepath.Base(filepath.Dir(m))+": "+line)
		}
	}
	return found
}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// assertOneLine fails when err's message spans several lines.
func assertOneLine(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("want an error, got nil")
	}
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Errorf("error is not one line: %q", err.Error())
	}
}
