package provision

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunToolCancelledWaitsForItsGroup: a tool whose context is cancelled
// returns only once every process of its group is gone. The tool here
// leaves a child that outlives it by 2 s (as mariadbd --bootstrap
// outlives mariadb-install-db under load), and its Cancel kills the tool
// alone, so only runTool's wait stands between the caller and the child.
func TestRunToolCancelledWaitsForItsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mark := filepath.Join(t.TempDir(), "forked")
	cmd := exec.CommandContext(ctx, "sh", "-c", `sleep 2 >/dev/null 2>&1 & touch "$0"; exec sleep 30`, mark)
	cmd.SysProcAttr = procAttr(syscall.SIGKILL, account{})
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	cmd.WaitDelay = time.Second
	done := make(chan error, 1)
	go func() { done <- runTool(ctx, cmd, "sh") }()
	go func() {
		for range 2000 {
			if _, err := os.Stat(mark); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("runTool did not return 20 s after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if err := syscall.Kill(-cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("runTool returned while its group %d still had a process (kill 0: %v)", cmd.Process.Pid, err)
	}
}

// TestChildNamedWaitsForItsName: a child forked a moment ago has not yet
// taken the name it runs under (a just-started primary's "postgres:
// walwriter"); childNamed waits for it instead of finding none.
func TestChildNamedWaitsForItsName(t *testing.T) {
	// the script in a file: a bash -c line holding the name would name
	// the subshell too
	script := filepath.Join(t.TempDir(), "postmaster")
	if err := os.WriteFile(script, []byte(`(sleep 0.3; exec -a "postgres: walwriter" sleep 30) & wait`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	parent := exec.Command("bash", script)
	parent.SysProcAttr = procAttr(syscall.SIGKILL, account{})
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-parent.Process.Pid, syscall.SIGKILL)
		_ = parent.Wait()
	})
	pid, err := childNamed(parent.Process.Pid, "walwriter", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || !strings.Contains(string(cmd), "postgres: walwriter") {
		t.Errorf("childNamed = pid %d, command line %q (%v); want the one named postgres: walwriter", pid, cmd, err)
	}
	if _, err := childNamed(parent.Process.Pid, "checkpointer", 50*time.Millisecond); err == nil {
		t.Error("childNamed found a checkpointer the parent never started")
	}
}
