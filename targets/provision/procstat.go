package provision

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Process is one process as /proc/PID/stat describes it.
type Process struct {
	PID, Parent, Group int
	State              byte          // R, S, D, Z (exited, not reaped), ...
	CPU                time.Duration // its user and system time, and its reaped children's
}

// userHZ is the unit of the times in /proc/PID/stat: fixed at 100 by the
// Linux ABI.
const userHZ = 100

// ParseStat reads a /proc/PID/stat line.
func ParseStat(s string) (Process, bool) {
	var p Process
	open, i := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')') // the command may hold spaces and parentheses
	if open < 1 || i < open || i+2 > len(s) {
		return p, false
	}
	f := strings.Fields(s[i+2:])
	// state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
	if len(f) < 15 || len(f[0]) != 1 {
		return p, false
	}
	p.State = f[0][0]
	var err [3]error
	p.PID, err[0] = strconv.Atoi(strings.TrimSpace(s[:open]))
	p.Parent, err[1] = strconv.Atoi(f[1])
	p.Group, err[2] = strconv.Atoi(f[2])
	if err != [3]error{} {
		return p, false
	}
	var ticks int64
	for _, x := range f[11:15] {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return p, false
		}
		ticks += n
	}
	p.CPU = time.Duration(ticks) * time.Second / userHZ
	return p, true
}

// Processes lists the processes /proc shows; nil without /proc. One that
// exits while they are read is left out.
func Processes() []Process {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	out := make([]Process, 0, len(stats))
	for _, f := range stats {
		if p, ok := readStat(f); ok {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func readStat(file string) (Process, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Process{}, false
	}
	return ParseStat(string(b))
}

// MachineCPU reads the machine's busy and total CPU time from /proc/stat.
func MachineCPU() (busy, all time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	// cpu user nice system idle iowait irq softirq steal (guest time is in user)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0, false
	}
	var t [8]int64
	for i := range t {
		if t[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
			return 0, 0, false
		}
	}
	tick := func(n int64) time.Duration { return time.Duration(n) * time.Second / userHZ }
	for _, n := range t {
		all += tick(n)
	}
	return all - tick(t[3]) - tick(t[4]), all, true
}
