package compare

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestClockCountsAStoresProcesses: a store's CPU time is its leader's,
// its group's and its children's, a child in a session of its own (as a
// Postgres backend is) among them, and what a child spent stays counted
// once it exited and its parent reaped it.
func TestClockCountsAStoresProcesses(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	busy := `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done`
	cmd := exec.Command("sh", "-c", `setsid sh -c '`+busy+`'; touch "$1"; exec sleep 60`, "sh", done)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	clock := cpuClock{groups: map[string]int{PartPostgres: cmd.Process.Pid}}
	// While the busy child runs (in its own session), the leader spends nothing.
	var live time.Duration
	for deadline := time.Now().Add(20 * time.Second); live < 50*time.Millisecond; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(done); err == nil || time.Now().After(deadline) {
			t.Fatalf("the busy child's CPU time was never counted while it ran (last reading %v)", live)
		}
		r, ok := clock.read()
		if !ok {
			t.Fatal("no reading")
		}
		live = r[PartPostgres]
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the busy child did not finish")
		}
	}
	r, _ := clock.read()
	if r[PartPostgres] < live {
		t.Errorf("after the child exited: %v, less than %v while it ran", r[PartPostgres], live)
	}
	if r[PartIdemchaos] <= 0 {
		t.Errorf("this process: %v", r[PartIdemchaos])
	}
}

// TestWindowEnd: a window's parts are what each spent since it began, the
// load tool's as given, and the total is their sum.
func TestWindowEnd(t *testing.T) {
	w := window{clock: cpuClock{}, start: reading{PartIdemchaos: 0}}
	r := w.end(30 * time.Millisecond)
	if r == nil || r[PartTool] != 30*time.Millisecond || r[PartIdemchaos] <= 0 ||
		r[PartTotal] != r[PartTool]+r[PartIdemchaos] {
		t.Errorf("end = %v", r)
	}
	if _, ok := w.end(0)[PartTool]; ok {
		t.Error("a window with no tool has a tool part")
	}
	if (window{clock: cpuClock{}}).end(0) != nil {
		t.Error("a window that could not begin has figures")
	}
}
