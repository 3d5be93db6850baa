package provision

import (
	"os"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	line := "4242 (post gres: (x)) S 4000 4100 4100 0 -1 4194560 10 0 0 0 150 25 7 3 20 0 1 0 100 0 0\n"
	p, ok := ParseStat(line)
	want := Process{PID: 4242, Parent: 4000, Group: 4100, State: 'S', CPU: (150 + 25 + 7 + 3) * time.Second / userHZ}
	if !ok || p != want {
		t.Fatalf("ParseStat = %+v, %v; want %+v", p, ok, want)
	}
	for _, bad := range []string{"", "4242 (x", "4242 (x) S 1 2", "x (y) S 1 2 3 0 -1 0 0 0 0 0 1 1 1 1", "4242 (x) S 1 2 3 0 -1 0 0 0 0 0 a 1 1 1"} {
		if _, ok := ParseStat(bad); ok {
			t.Errorf("ParseStat(%q) accepted", bad)
		}
	}
}

// TestProcessesAndMachine: /proc lists this process, and the machine has
// spent CPU time, some of it busy.
func TestProcessesAndMachine(t *testing.T) {
	var me *Process
	for _, p := range Processes() {
		if p.PID == os.Getpid() {
			me = &p
		}
	}
	if me == nil || me.Parent != os.Getppid() || me.State == 'Z' {
		t.Errorf("this process in Processes(): %+v", me)
	}
	busy, all, ok := MachineCPU()
	if !ok || busy <= 0 || all < busy {
		t.Errorf("MachineCPU = %v, %v, %v", busy, all, ok)
	}
}
