package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestInterruptLeavesNothingBehind sends Ctrl-C while the CLI provisions its
// own stores and while a matrix runs: it must exit 130 and leave no process,
// listening port or data directory behind.
//
// The replicated cases start the replicated Postgres (a primary, pg_basebackup,
// a standby) for crash and lag cells: Ctrl-C while the pair starts (the
// primary's start line) or between its cells, one of which crashes and
// restarts the primary, must leave nothing either; so must Ctrl-C while a
// replicated Redis starts and between failover cells (the next topology
// starting, or one failing over).
func TestInterruptLeavesNothingBehind(t *testing.T) {
	single := []string{"--strategies", "pg-tx", "--scenarios", "dropped-response"}
	replicated := []string{"--strategies", "pg-tx", "--scenarios", "pg-async-commit-crash,pg-standby-lag"}
	failover := []string{"--strategies", "redis-setnx", "--scenarios", "redis-failover"}
	for name, c := range map[string]struct {
		when  string
		cells []string
		env   []string
	}{
		// a start copies the cluster cache's cluster: without it, initdb
		"during-initdb":           {"initdb ", single, []string{"IDEMCHAOS_CLUSTER_CACHE=off"}},
		"mid-matrix":              {"] ", single, nil},
		"during-replicated-start": {"starting postgres on ", replicated, nil},
		"mid-replicated-matrix":   {"] ", replicated, nil},
		"topology-start":          {"starting redis topology ", failover, nil},
		"mid-failovers":           {"] ", failover, nil},
	} {
		when := c.when
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{"matrix", "--no-docker", "--verbose"}, c.cells...), "--seeds", "50")
			p := startCLIEnv(t, traversableTempDir(t), append(slices.Clone(localStores), c.env...), args...)
			if !p.stderr.waitFor(when, procWait, p.done) {
				t.Fatalf("no %q on stderr within %v:\n%s", when, procWait, p.stderr.text())
			}
			p.signal(t, syscall.SIGINT)
			if code := p.wait(t, procWait); code != exitInterrupted {
				t.Fatalf("exit %d; want %d\n%s", code, exitInterrupted, p.stderr.text())
			}
			assertNothingLeft(t, p)
		})
	}
}

// procWait bounds each wait on a CLI in the background: for a line on its
// stderr, or for its exit. It is a liveness bound, not a speed check: six
// of these tests start their own Postgres at once, and on 2 busy cores one
// initdb took 27s.
const procWait = 3 * time.Minute

// cliProc is the built CLI running in the background with its own temp dir
// (TMPDIR) and its own stores, watched while it runs.
type cliProc struct {
	cmd    *exec.Cmd
	base   string // the CLI's TMPDIR: every data dir it makes is in it
	stderr *lineLog
	stdout bytes.Buffer
	tree   *procTree
	done   chan struct{}
}

// localStores makes the CLI start its own Redis and Postgres.
var localStores = []string{"IDEMCHAOS_REDIS_URL=", "IDEMCHAOS_POSTGRES_URL="}

// startCLI starts the binary with its own stores and TMPDIR=base.
func startCLI(t *testing.T, base string, args ...string) *cliProc {
	t.Helper()
	return startCLIEnv(t, base, localStores, args...)
}

// startCLIEnv starts the binary with env added and TMPDIR=base.
func startCLIEnv(t *testing.T, base string, env []string, args ...string) *cliProc {
	t.Helper()
	p := &cliProc{base: base, stderr: &lineLog{}, done: make(chan struct{})}
	p.cmd = exec.Command(binary, args...)
	p.cmd.Env = append(append(os.Environ(), env...), "TMPDIR="+base)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, p.stderr
	p.cmd.WaitDelay = 10 * time.Second
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.tree = watchTree(p.cmd.Process.Pid, p.done)
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// signal sends sig; false when the CLI had already exited.
func (p *cliProc) signal(t *testing.T, sig syscall.Signal) bool {
	t.Helper()
	err := p.cmd.Process.Signal(sig)
	if errors.Is(err, os.ErrProcessDone) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// wait waits up to d for the CLI to exit and returns its exit code (-1 when
// a signal killed it).
func (p *cliProc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("the CLI did not exit within %s; stderr:\n%s", d, p.stderr.text())
		return 0
	}
}

// killedBy reports whether sig ended the exited CLI.
func (p *cliProc) killedBy(sig syscall.Signal) bool {
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// lineLog collects what the CLI writes, by line.
type lineLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first time.Time // when the first line ended
}

func (l *lineLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first.IsZero() && bytes.IndexByte(b, '\n') >= 0 {
		l.first = time.Now()
	}
	return l.buf.Write(b)
}

func (l *lineLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitFor waits up to d for a line containing marker; false if the CLI
// exited (done) or d passed first.
func (l *lineLog) waitFor(marker string, d time.Duration, done <-chan struct{}) bool {
	deadline := time.After(d)
	for {
		if strings.Contains(l.text(), marker) {
			return true
		}
		select {
		case <-done:
			return strings.Contains(l.text(), marker)
		case <-deadline:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// firstLine waits for the first complete line and returns when it came.
func (l *lineLog) firstLine(t *testing.T, done <-chan struct{}) time.Time {
	t.Helper()
	if !l.waitFor("\n", 30*time.Second, done) {
		t.Fatalf("no output within 30s: %q", l.text())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first
}

// procID names a process across pid reuse.
type procID struct {
	pid   int
	start string // starttime, field 22 of /proc/PID/stat
}

// procTree records every descendant of a process seen while it runs: once
// it exits, its orphans are re-parented and can no longer be found by
// ancestry.
type procTree struct {
	mu   sync.Mutex
	seen map[procID]string // -> command line
}

func watchTree(root int, done <-chan struct{}) *procTree {
	pt := &procTree{seen: map[procID]string{}}
	go func() {
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for {
			pt.scan(root)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return pt
}

func (pt *procTree) scan(root int) {
	children := map[int][]int{}
	ids := map[int]procID{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		ppid, start, state, ok := readStat(pid)
		if !ok || state == "Z" {
			continue
		}
		children[ppid] = append(children[ppid], pid)
		ids[pid] = procID{pid, start}
	}
	pt.mu.Lock()
	defer pt.mu.Unlock()
	for queue := children[root]; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		if _, ok := pt.seen[ids[pid]]; !ok {
			pt.seen[ids[pid]] = cmdline(pid)
		}
		queue = append(queue, children[pid]...)
	}
}

// alive lists the recorded descendants still running (zombies excluded).
func (pt *procTree) alive() []string {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	var out []string
	for id, cmd := range pt.seen {
		if _, start, state, ok := readStat(id.pid); ok && start == id.start && state != "Z" {
			out = append(out, strconv.Itoa(id.pid)+":"+cmd)
		}
	}
	return out
}

func (pt *procTree) count() int {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return len(pt.seen)
}

// readStat reads a process's parent, start time and state.
func readStat(pid int) (ppid int, start, state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", "", false
	}
	i := bytes.LastIndexByte(b, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, "", "", false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, "", "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[19], f[0], true
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// processesMentioning lists live processes whose command line holds s.
func processesMentioning(s string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		cmd := cmdline(pid)
		if !strings.Contains(cmd, s) {
			continue
		}
		if _, _, state, ok := readStat(pid); ok && state != "Z" {
			out = append(out, strconv.Itoa(pid)+":"+cmd)
		}
	}
	return out
}

// startedOn matches the line the CLI logs when it starts a store.
var startedOn = regexp.MustCompile(`starting (?:redis|postgres) [^\n]*?on 127\.0\.0\.1:(\d+)`)

// topologyOn matches the line the CLI logs when it starts a replicated
// Redis, and each address in it.
var (
	topologyOn = regexp.MustCompile(`starting redis topology on 127\.0\.0\.1: [^\n]*`)
	addrIn     = regexp.MustCompile(`\b(\d{2,5})\b`)
)

// ports lists the ports of the stores the CLI started (not those it was given).
func (p *cliProc) ports() []int {
	var out []int
	text := p.stderr.text()
	for _, line := range topologyOn.FindAllString(text, -1) {
		_, ports, _ := strings.Cut(line, ": ")
		for _, m := range addrIn.FindAllStringSubmatch(ports, -1) {
			if n, err := strconv.Atoi(m[1]); err == nil {
				out = append(out, n)
			}
		}
	}
	for _, m := range startedOn.FindAllStringSubmatch(topologyOn.ReplaceAllString(text, ""), -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// listening lists which of ports some socket listens on.
func listening(ports []int) []int {
	want := map[int]bool{}
	for _, p := range ports {
		want[p] = true
	}
	var out []int
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		out = append(out, listeningIn(f, want)...)
		f.Close()
	}
	return out
}

func listeningIn(r io.Reader, want map[int]bool) []int {
	var out []int
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text()) // sl local_address rem_address st ...
		if len(f) < 4 || f[3] != "0A" {
			continue
		}
		_, hexPort, _ := strings.Cut(f[1], ":")
		port, err := strconv.ParseInt(hexPort, 16, 32)
		if err == nil && want[int(port)] {
			out = append(out, int(port))
		}
	}
	return out
}

// leftovers is what the exited CLI left running or on disk.
func (p *cliProc) leftovers() []string {
	var out []string
	out = append(out, p.tree.alive()...)
	out = append(out, processesMentioning(p.base)...)
	for _, port := range listening(p.ports()) {
		out = append(out, "listening on 127.0.0.1:"+strconv.Itoa(port))
	}
	entries, _ := os.ReadDir(p.base)
	for _, e := range entries {
		out = append(out, "left in TMPDIR: "+e.Name())
	}
	return out
}

// assertNothingLeft waits up to 5s for no process, port or temp dir of the
// CLI to remain.
func assertNothingLeft(t *testing.T, p *cliProc) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := p.leftovers()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %q\nstderr:\n%s", left, p.stderr.text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// traversableTempDir is a TMPDIR for the CLI that the postgres user can
// reach (t.TempDir's parent is 0700).
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
