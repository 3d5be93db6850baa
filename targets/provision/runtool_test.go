package provision

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
