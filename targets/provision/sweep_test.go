package provision

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// deadPid returns the pid of a child that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if alive(pid) {
		t.Fatalf("pid %d of a reaped child is alive", pid)
	}
	return pid
}

// fakeDir creates base/name with pid files (relative path → pid).
func fakeDir(t *testing.T, base, name string, pids map[string]int) string {
	t.Helper()
	dir := filepath.Join(base, name)
	for file, pid := range pids {
		path := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		// postmaster.pid holds more lines after the pid.
		if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n/data\n1700000000\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSweep(t *testing.T) {
	base := t.TempDir()
	dead, me := deadPid(t), os.Getpid()
	stalePG := fakeDir(t, base, pgDirPrefix+"stale", map[string]int{postmasterPid: dead})
	staleRedis := fakeDir(t, base, redisDirPrefix+"stale", map[string]int{ownerPidFile: dead, redisPidFile: dead})
	staleMySQL := fakeDir(t, base, mysqlDirPrefix+"stale", map[string]int{ownerPidFile: dead, mysqlPidFile: dead})
	oldEmpty := fakeDir(t, base, pgDirPrefix+"old-empty", nil)
	old := time.Now().Add(-2 * orphanAge)
	if err := os.Chtimes(oldEmpty, old, old); err != nil {
		t.Fatal(err)
	}
	kept := []string{
		fakeDir(t, base, redisDirPrefix+"live", map[string]int{redisPidFile: me}),
		fakeDir(t, base, pgDirPrefix+"live-postmaster", map[string]int{ownerPidFile: dead, postmasterPid: me}),
		fakeDir(t, base, pgDirPrefix+"live-owner", map[string]int{ownerPidFile: me, postmasterPid: dead}),
		fakeDir(t, base, pgDirPrefix+"young-empty", nil),
		fakeDir(t, base, mysqlDirPrefix+"live-mariadbd", map[string]int{ownerPidFile: dead, mysqlPidFile: me}),
		fakeDir(t, base, "other-stale", map[string]int{ownerPidFile: dead}),
	}

	removed, err := Sweep(base)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{oldEmpty, stalePG, staleRedis, staleMySQL}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, dir := range want {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s still exists", dir)
		}
	}
	for _, dir := range kept {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
	if !alive(me) {
		t.Error("Sweep must kill nothing")
	}
}

func TestSweepMissingBase(t *testing.T) {
	removed, err := Sweep(filepath.Join(t.TempDir(), "absent"))
	if err != nil || len(removed) != 0 {
		t.Fatalf("Sweep(absent) = %v, %v; want nothing, nil", removed, err)
	}
}

// TestSweepTreatsZombiesAsDead: a server killed with its run is a zombie
// until init reaps it; its data dir is stale already.
func TestSweepTreatsZombiesAsDead(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(5 * time.Second); !zombie(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never became a zombie", pid)
		}
	}
	base := t.TempDir()
	dir := fakeDir(t, base, redisDirPrefix+"zombie", map[string]int{ownerPidFile: deadPid(t), redisPidFile: pid})
	removed, err := Sweep(base)
	if err != nil || !slices.Equal(removed, []string{dir}) {
		t.Fatalf("Sweep = %v, %v; want %s removed", removed, err, dir)
	}
}
