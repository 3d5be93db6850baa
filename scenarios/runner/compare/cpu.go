package compare

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The parts a measurement's CPU time is split into, in table order.
const (
	PartPostgres  = "postgres"
	PartRedis     = "redis"
	PartIdemchaos = "idemchaos" // this process: the target's server, and idemchaos's client when it drives
	PartTool      = "tool"      // wrk or pgbench
	PartTotal     = "total"
)

var parts = []string{PartPostgres, PartRedis, PartIdemchaos, PartTool, PartTotal}

// The machine's CPU time in a reading (/proc/stat, every CPU): busy (not
// idle, not waiting for I/O) and in all. Not parts: no process spent it.
const (
	machineBusy = "machine busy"
	machineAll  = "machine all"
)

// userHZ is the unit of the times in /proc/PID/stat: fixed at 100 by the
// Linux ABI.
const userHZ = 100

// cpuClock reads the CPU time the stores and this process have spent. A
// store is its leader process (the one idemchaos started), the other
// processes of its group, and the leader's children: a Postgres server's
// backends start sessions of their own but are the postmaster's children,
// and one that exited meanwhile is in the postmaster's reaped-children
// times. A difference of two readings is thus what the store spent
// between them. Without /proc it reads this process alone.
type cpuClock struct {
	groups map[string]int // part -> its leader's pid (and process group id)
}

// reading is the CPU time spent so far, by part.
type reading map[string]time.Duration

// read takes a reading; ok is false when there is nothing to read.
func (c cpuClock) read() (reading, bool) {
	r := reading{}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nil, false
	}
	r[PartIdemchaos] = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if busy, all, ok := machineCPU(); ok {
		r[machineBusy], r[machineAll] = busy, all
	}
	if len(c.groups) == 0 {
		return r, true
	}
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return r, true // no /proc: this process alone
	}
	byLeader := map[int]string{}
	for part, g := range c.groups {
		byLeader[g] = part
		r[part] = 0
	}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited meanwhile: its times are its parent's now
		}
		st, ok := parseStat(string(b))
		if !ok {
			continue
		}
		for _, id := range []int{st.pid, st.group, st.parent} {
			if part, mine := byLeader[id]; mine {
				r[part] += time.Duration(st.ticks) * time.Second / userHZ
				break
			}
		}
	}
	return r, true
}

// machineCPU reads the machine's busy and total CPU time from /proc/stat.
func machineCPU() (busy, all time.Duration, ok bool) {
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

// stat is what a /proc/PID/stat line says of a process: its id, its
// parent's, its group's, and the CPU ticks of it and its reaped children.
type stat struct {
	pid, parent, group int
	ticks              int64
}

func parseStat(s string) (stat, bool) {
	var st stat
	open, i := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')') // the command may hold spaces and parentheses
	if open < 1 || i < open || i+2 > len(s) {
		return st, false
	}
	f := strings.Fields(s[i+2:])
	// state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
	if len(f) < 15 {
		return st, false
	}
	var err [3]error
	st.pid, err[0] = strconv.Atoi(strings.TrimSpace(s[:open]))
	st.parent, err[1] = strconv.Atoi(f[1])
	st.group, err[2] = strconv.Atoi(f[2])
	if err != [3]error{} {
		return st, false
	}
	for _, x := range f[11:15] {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return st, false
		}
		st.ticks += n
	}
	return st, true
}

// window is a measurement's CPU time, from its start to its end.
type window struct {
	clock cpuClock
	start reading
}

func (c cpuClock) begin() window {
	r, _ := c.read()
	return window{clock: c, start: r}
}

// end is the CPU time spent since begin, by part (the load tool's as it
// is given: a child's own usage), with the total; nil when it could not be
// read.
func (w window) end(tool time.Duration) reading {
	now, ok := w.clock.read()
	if !ok || w.start == nil {
		return nil
	}
	out := reading{}
	for part, t := range now {
		out[part] = max(0, t-w.start[part])
	}
	if tool > 0 {
		out[PartTool] = tool
	}
	for _, part := range parts[:len(parts)-1] {
		out[PartTotal] += out[part]
	}
	return out
}

// childCPU is the CPU time a finished child process spent (its threads
// and its own children included).
func childCPU(st *os.ProcessState) time.Duration {
	if st == nil {
		return 0
	}
	return st.UserTime() + st.SystemTime()
}
