package provision

import (
	"net"
	"testing"
)

func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	high := ephemeralLow()
	if high-pickLow < pickMinRange {
		t.Fatalf("this machine's ephemeral range starts at %d: no room below it to test", high)
	}
	ports, err := freePorts(8)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ports {
		if p < pickLow || p >= high {
			t.Errorf("port %d is not in [%d, %d), below the ephemeral range", p, pickLow, high)
		}
		l, err := net.Listen("tcp", loopback(p))
		if err != nil {
			t.Errorf("port %d was handed out but cannot be bound: %v", p, err)
			continue
		}
		l.Close()
	}
}

func TestWalkPortsSkipsATakenPort(t *testing.T) {
	high := ephemeralLow()
	first, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	held, err := net.Listen("tcp", loopback(first))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	portWalk.Lock()
	portWalk.next = first
	portWalk.Unlock()
	p, ok := walkPorts(pickLow, high)
	if !ok || p == first {
		t.Fatalf("walkPorts = %d, %v; want a port other than %d, which is held", p, ok, first)
	}
}

func TestWalkPortsWraps(t *testing.T) {
	portWalk.Lock()
	portWalk.next = ephemeralLow() - 1
	portWalk.Unlock()
	seen := map[int]bool{}
	for range 3 {
		p, ok := walkPorts(pickLow, ephemeralLow())
		if !ok {
			t.Fatal("no free port near the ends of the range")
		}
		seen[p] = true
	}
	if !seen[pickLow] && !seen[pickLow+1] && !seen[pickLow+2] {
		t.Errorf("after the top of the range the walk gave %v; want it to go on from %d", seen, pickLow)
	}
}
