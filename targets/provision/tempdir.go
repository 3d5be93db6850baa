package provision

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Names of the per-run directories and of the pid files inside them.
const (
	pgDirPrefix       = "idemchaos-pg-"
	redisDirPrefix    = "idemchaos-redis-"
	mysqlDirPrefix    = "idemchaos-mysql-"
	dynaliteDirPrefix = "idemchaos-dynalite-"
	ownerPidFile      = "owner.pid"           // pid of the Go process that made the dir
	redisPidFile      = "redis.pid"           // pid of redis-server
	postmasterPid     = "data/postmaster.pid" // written by postgres
	mysqlPidFile      = "mariadbd.pid"        // written by mariadbd (--pid-file)
	dynalitePidFile   = "dynalite.pid"        // pid of dynalite's node process
	logTailMaxBytes   = 8 << 10               // how much of a log to read for errors
	logTailLines      = 5                     // how many log lines errors quote
)

// newRunDir creates base/prefix* and records the owner's pid in it.
func newRunDir(base, prefix string) (string, error) {
	dir, err := os.MkdirTemp(base, prefix+"*")
	if err != nil {
		return "", fmt.Errorf("create data dir: %w", err)
	}
	if err := writePid(filepath.Join(dir, ownerPidFile), os.Getpid()); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

func writePid(path string, pid int) error {
	if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return fmt.Errorf("write pid file: %w", err)
	}
	return nil
}

// checkTraversable makes sure uid/gid can reach dir: every directory from
// dir up to / must grant it search (x) permission. Without this, exec as
// that user fails with a misleading "permission denied".
func checkTraversable(dir string, uid, gid int) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for p := abs; ; p = filepath.Dir(p) {
		if err := canSearch(p, uid, gid); err != nil {
			return fmt.Errorf("temp dir %s is not usable by uid %d: %w; use a base under %s", dir, uid, err, os.TempDir())
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// canSearch reports whether uid/gid (no supplementary groups) may enter p.
func canSearch(p string, uid, gid int) error {
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	mode := info.Mode().Perm()
	switch {
	case mode&0o001 != 0:
		return nil
	case ok && int(st.Uid) == uid && mode&0o100 != 0:
		return nil
	case ok && int(st.Gid) == gid && mode&0o010 != 0:
		return nil
	}
	return fmt.Errorf("%s (mode %v) cannot be traversed", p, mode)
}

// logTail returns the last lines of a log file joined on one line.
func logTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > logTailMaxBytes {
		if _, err := f.Seek(-logTailMaxBytes, io.SeekEnd); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(f)
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return lastLines(string(b))
}

// lastLines returns the last lines of s on one line.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return oneLine(strings.Join(lines, "\n"))
}
