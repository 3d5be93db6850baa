package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptLeavesNothingBehind sends Ctrl-C while the CLI provisions its
// own stores and while a matrix runs: it must exit 130 and leave no process
// and no data directory behind.
func TestInterruptLeavesNothingBehind(t *testing.T) {
	for name, when := range map[string]string{"during-initdb": "initdb ", "mid-matrix": "] "} {
		t.Run(name, func(t *testing.T) {
			base := traversableTempDir(t)
			cmd := exec.Command(binary, "matrix", "--no-docker", "--seeds", "50")
			cmd.Env = append(os.Environ(), "TMPDIR="+base, "IDEMCHAOS_REDIS_URL=", "IDEMCHAOS_POSTGRES_URL=")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForLine(t, stderr, when)
			_ = cmd.Process.Signal(syscall.SIGINT)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
					t.Fatalf("exit: %v; want %d", err, exitInterrupted)
				}
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the CLI did not stop within 60s of Ctrl-C")
			}
			assertNothingLeft(t, base)
		})
	}
}

func traversableTempDir(t *testing.T) string {
	base, err := os.MkdirTemp("", "idemchaos-int-*")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	return base
}

// waitForLine reads stderr until a line contains marker, then keeps draining
// it in the background.
func waitForLine(t *testing.T, r interface{ Read([]byte) (int, error) }, marker string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	found := make(chan bool, 1)
	go func() {
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), marker) {
				ok = true
				found <- true
			}
		}
		if !ok {
			found <- false
		}
	}()
	select {
	case ok := <-found:
		if !ok {
			t.Fatalf("the CLI ended before printing %q", marker)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("no %q on stderr within 60s", marker)
	}
}

// assertNothingLeft: no live process mentions base, and base is empty.
func assertNothingLeft(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		procs := processesMentioning(base)
		entries, _ := os.ReadDir(base)
		if len(procs) == 0 && len(entries) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind: processes %v, entries %v", procs, entries)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func processesMentioning(s string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue // a zombie already exited
		}
		out = append(out, filepath.Base(d)+":"+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}
