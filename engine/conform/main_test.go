package conform

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// services are the package's one Redis and Postgres; each test that
// deploys gets databases of its own (Session.NewDatabase) and a Toxiproxy
// of its own.
var services *provision.Services

// TestMain runs the package's tests on shared stores, or, when the test
// binary is started as one of the tests' helper processes (its first
// argument says which), runs that process instead.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case fakeTargetArg:
			os.Exit(fakeTarget(os.Args[2:]))
		case harnessArg:
			os.Exit(harness(os.Args[2:]))
		case dynaliteHarnessArg:
			os.Exit(dynaliteHarness(os.Args[2:]))
		}
	}
	redis.SetLogger(&logging.VoidLogger{}) // a cut store link makes go-redis log every failed dial
	os.Exit(provisiontest.Main(m, &services))
}

// newEnv is a session on the shared stores with a Toxiproxy of the test's
// own, and builds into a temporary directory. The session is never closed:
// that would stop the shared stores; each deployment drops its database.
func newEnv(t *testing.T, b *Builds) Env {
	t.Helper()
	toxi, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = toxi.Close() })
	dyn := &dynamoDB{}
	t.Cleanup(func() { _ = dyn.close() })
	return Env{Session: &engine.Session{Services: services, Toxi: toxi}, Builds: b, runID: newRunID(), dynamo: dyn}
}

// self is the test binary, which the tests start as their targets.
func self(t *testing.T) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// fakeBuilds are builds whose Go target dir "fake/faketarget" and whose
// paymentd are the test binary, already built: a target of either kind
// then runs the fake target of fake_target_test.go (its Args starting with
// fakeTargetArg).
func fakeBuilds(t *testing.T) *Builds {
	t.Helper()
	b := &Builds{Source: t.TempDir(), Work: t.TempDir(), Log: tlog{t}}
	for _, name := range []string{"faketarget", "paymentd"} {
		if err := os.Symlink(self(t), filepath.Join(b.Work, name)); err != nil {
			t.Fatal(err)
		}
	}
	b.done = map[string]error{fakeDir: nil, "paymentd": nil}
	return b
}

// fakeDir is the Dir of a fake Go target.
const fakeDir = "fake/faketarget"

// tlog is a test's log as an io.Writer.
type tlog struct{ t *testing.T }

func (w tlog) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// lines is an io.Writer that keeps what it was given, line by line.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

// count is how many lines contain s.
func (l *lines) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// newMark is a string no other process's command line holds: the tests
// pass it to the processes they start, to find them again.
func newMark() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "mark-" + hex.EncodeToString(b[:])
}

// running lists the live processes whose command line holds s (a zombie
// has none: it is dead, whoever reaps it).
func running(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(s)) {
			out = append(out, e.Name()+" "+string(bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte(" "))))
		}
	}
	return out
}

// noneRunning fails the test if a process holding mark still runs.
func noneRunning(t *testing.T, mark string) {
	t.Helper()
	if left := running(mark); len(left) > 0 {
		t.Errorf("processes left behind: %q", left)
	}
}

// killLeftovers kills, when the test ends, what it started and left
// running (a test that failed): each process holding mark, by its id.
func killLeftovers(t *testing.T, mark string) {
	t.Cleanup(func() {
		for _, p := range running(mark) {
			pid, _ := strconv.Atoi(strings.Fields(p)[0])
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// await polls cond every 20 ms until it holds or within passes; it says
// whether it held.
func await(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
