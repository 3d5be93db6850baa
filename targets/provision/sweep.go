package provision

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// orphanAge is how old a data dir without any pid file must be before
// Sweep treats it as abandoned (a run may be between mkdir and writing).
const orphanAge = 10 * time.Minute

// Sweep removes data dirs under base (os.TempDir() when "") left by an
// earlier killed run: dirs named idemchaos-pg-*, idemchaos-redis-*,
// idemchaos-mysql-* or idemchaos-dynalite-* all of whose recorded pids (the
// creating process, postmaster.pid's first line, redis.pid, mariadbd.pid,
// dynalite.pid) are dead. It kills nothing; a dir with any live pid is
// kept. It returns the dirs it removed.
func Sweep(base string) (removed []string, err error) {
	if base == "" {
		base = os.TempDir()
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("sweep %s: %w", base, err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !slices.ContainsFunc(runDirPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		dir := filepath.Join(base, name)
		if !isStale(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("sweep: %w", err))
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// runDirPrefixes name the dirs Sweep may remove.
var runDirPrefixes = []string{pgDirPrefix, redisDirPrefix, mysqlDirPrefix, dynaliteDirPrefix}

// isStale reports whether no process recorded in dir is alive.
func isStale(dir string) bool {
	var pids []int
	for _, f := range []string{ownerPidFile, redisPidFile, postmasterPid, mysqlPidFile, dynalitePidFile} {
		if pid, ok := readPid(filepath.Join(dir, f)); ok {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		info, err := os.Stat(dir)
		return err == nil && time.Since(info.ModTime()) > orphanAge
	}
	for _, pid := range pids {
		if alive(pid) {
			return false
		}
	}
	return true
}

// readPid parses the first line of a pid file.
func readPid(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	return pid, err == nil && pid > 0
}

// alive reports whether a process with this pid exists and has not exited.
// A zombie has exited: the servers of a SIGKILLed run are orphans, and stay
// zombies until init reaps them, which some container inits do late or never.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !zombie(pid)
}

// zombie reports whether /proc shows pid as exited but not reaped; false
// where /proc cannot tell.
func zombie(pid int) bool {
	p, ok := readStat("/proc/" + strconv.Itoa(pid) + "/stat")
	return ok && p.State == 'Z'
}
