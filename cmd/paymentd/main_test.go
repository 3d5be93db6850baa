package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var (
	services *provision.Services // shared by the tests that pass URLs
	binary   string
)

// TestMain builds paymentd once (or takes the suite's, make test's) and
// provisions one Redis, Postgres and MariaDB (for the innodb-* strategies)
// for the tests that give paymentd their URLs.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "paymentd-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	bin, err := provisiontest.Build(dir, ".")
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n", err)
		os.Exit(3)
	}
	binary = filepath.Join(bin, "paymentd")
	code := provisiontest.Main(m, &services, provisiontest.WithMySQL)
	os.RemoveAll(dir)
	os.Exit(code)
}

// readyTimeout bounds a start, provisioning included (initdb is slow on a
// loaded 2-core machine).
const readyTimeout = 3 * time.Minute

// daemon is a running paymentd.
type daemon struct {
	cmd   *exec.Cmd
	url   string // http://host:port, from the start line
	ready chan struct{}
	done  chan struct{}
	code  int

	mu    sync.Mutex
	lines []string
}

// startDaemon starts paymentd and waits for its ready line.
func startDaemon(t *testing.T, env []string, args ...string) *daemon {
	t.Helper()
	d := &daemon{cmd: exec.Command(binary, args...), ready: make(chan struct{}), done: make(chan struct{})}
	d.cmd.Env = append(os.Environ(), env...)
	pipe, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go d.read(pipe)
	t.Cleanup(func() { d.kill() })
	select {
	case <-d.ready:
	case <-d.done:
		t.Fatalf("paymentd exited %d before ready:\n%s", d.code, d.output())
	case <-time.After(readyTimeout):
		t.Fatalf("paymentd not ready after %v:\n%s", readyTimeout, d.output())
	}
	return d
}

// read collects stderr lines, notes the URL and the ready marker, then reaps
// the process once its stderr is closed.
func (d *daemon) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		d.mu.Lock()
		d.lines = append(d.lines, line)
		d.mu.Unlock()
		if rest, ok := strings.CutPrefix(line, "paymentd: strategy "); ok {
			_, after, _ := strings.Cut(rest, " on ")
			d.url, _, _ = strings.Cut(after, " ")
		}
		if line == readyLine {
			close(d.ready)
		}
	}
	err := d.cmd.Wait()
	d.code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		d.code = ee.ExitCode()
	} else if err != nil {
		d.code = -1
	}
	close(d.done)
}

func (d *daemon) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.lines, "\n")
}

// line returns the first stderr line with prefix, or "".
func (d *daemon) line(prefix string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// interrupt sends SIGINT and returns the exit code and how long it took.
func (d *daemon) interrupt(t *testing.T, within time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
		return d.code, time.Since(start)
	case <-time.After(within):
		d.kill()
		t.Fatalf("paymentd still running %v after SIGINT:\n%s", within, d.output())
		return 0, 0
	}
}

// kill ends the process if it still runs and waits for it.
func (d *daemon) kill() {
	select {
	case <-d.done:
	default:
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}

// outcome is a finished paymentd run.
type outcome struct {
	code           int
	stdout, stderr string
}

// runOnce runs paymentd to completion (for flag errors and -h).
func runOnce(t *testing.T, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("paymentd %v did not exit", args)
	}
	o := outcome{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		o.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o
}
