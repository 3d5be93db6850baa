package compare

import (
	"os"
	"syscall"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// The parts a measurement's CPU time is split into (results.Parts).
const (
	PartPostgres  = results.PartPostgres
	PartRedis     = results.PartRedis
	PartIdemchaos = results.PartIdemchaos
	PartTool      = results.PartTool
	PartTotal     = results.PartTotal
	PartMySQL     = results.PartMySQL
)

// parts are the parts a measurement's CPU time is split into.
var parts = results.Parts()

// The machine's CPU time in a reading (/proc/stat, every CPU): busy (not
// idle, not waiting for I/O) and in all. Not parts: no process spent it.
const (
	machineBusy = "machine busy"
	machineAll  = "machine all"
)

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
	if busy, all, ok := provision.MachineCPU(); ok {
		r[machineBusy], r[machineAll] = busy, all
	}
	if len(c.groups) == 0 {
		return r, true
	}
	procs := provision.Processes()
	if procs == nil {
		return r, true // no /proc: this process alone
	}
	byLeader := map[int]string{}
	for part, g := range c.groups {
		byLeader[g] = part
		r[part] = 0
	}
	for _, p := range procs {
		for _, id := range []int{p.PID, p.Group, p.Parent} {
			if part, mine := byLeader[id]; mine {
				r[part] += p.CPU
				break
			}
		}
	}
	return r, true
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
