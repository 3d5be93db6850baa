package idemchaos

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tmpfsMagic is the file system type statfs reports for a tmpfs.
const tmpfsMagic = 0x01021994

// roomyTmpfs reports whether dir is on a tmpfs with at least 2 GiB free,
// as scripts/tmpbase asks.
func roomyTmpfs(t *testing.T, dir string) bool {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == tmpfsMagic && uint64(st.Bavail)*uint64(st.Bsize) >= 2<<30
}

// tmpbase runs scripts/tmpbase with shm as its RAM file system ("": the
// default, /dev/shm) and returns what it printed.
func tmpbase(t *testing.T, shm string) string {
	t.Helper()
	cmd := exec.Command("scripts/tmpbase")
	cmd.Env = append(os.Environ(), "IDEMCHAOS_SHM="+shm)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/tmpbase: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestTmpBaseIsARoomyTmpfs: scripts/tmpbase (make test's TMPDIR) names a
// directory open to every user on a tmpfs with 2 GiB free when /dev/shm
// is one, and nothing otherwise; a directory on another file system is
// never named.
func TestTmpBaseIsARoomyTmpfs(t *testing.T) {
	got := tmpbase(t, "")
	switch roomy := roomyTmpfs(t, "/dev/shm"); {
	case roomy && got != "/dev/shm/idemchaos-tmp":
		t.Errorf("/dev/shm is a tmpfs with room; scripts/tmpbase printed %q", got)
	case !roomy && got != "":
		t.Errorf("/dev/shm is no tmpfs with room; scripts/tmpbase printed %q", got)
	case got != "":
		fi, err := os.Stat(got)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o777 || fi.Mode()&os.ModeSticky == 0 {
			t.Errorf("%s: mode %v; want a directory of mode 1777", got, fi.Mode())
		}
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	if roomyTmpfs(t, here) {
		return // the checkout itself is on a tmpfs: no other file system at hand
	}
	if got := tmpbase(t, here); got != "" {
		t.Errorf("a checkout on another file system: scripts/tmpbase printed %q; want nothing", got)
	}
}
