package provision

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// A server started here binds its own port, so a port is probed free and
// let go of before the server binds it. Between the two another socket can
// take it; when it does the server exits and the start is tried on a new
// port. Ports are picked below the kernel's ephemeral range, where no
// connecting socket is given one: a test run opens thousands of client
// connections, and their local ports are what took a probed port before.
// Each process starts its walk through the range at a point of its own
// (from its pid), so that processes starting servers at once pick apart.
const (
	pickLow          = 10000 // ports below are left to well-known services
	pickMinRange     = 1000  // fewer below the ephemeral range: let the kernel pick
	pickTries        = 256   // ports probed before letting the kernel pick
	ephemeralDefault = 32768 // Linux's default low end of the range
	portRangeFile    = "/proc/sys/net/ipv4/ip_local_port_range"
)

// portWalk is this process's place in the walk.
var portWalk struct {
	sync.Mutex
	next int // 0 = not started
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort() (int, error) {
	high := ephemeralLow()
	if high-pickLow >= pickMinRange {
		if p, ok := walkPorts(pickLow, high); ok {
			return p, nil
		}
	}
	return kernelPort()
}

// walkPorts probes ports in [low, high) from where this process left off.
func walkPorts(low, high int) (int, bool) {
	portWalk.Lock()
	defer portWalk.Unlock()
	if portWalk.next < low || portWalk.next >= high {
		portWalk.next = low + os.Getpid()*7919%(high-low)
	}
	for range pickTries {
		p := portWalk.next
		if portWalk.next++; portWalk.next == high {
			portWalk.next = low
		}
		if l, err := net.Listen("tcp", loopback(p)); err == nil {
			if l.Close() == nil {
				return p, true
			}
		}
	}
	return 0, false
}

// kernelPort lets the kernel pick a free port (in the ephemeral range).
func kernelPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return port, nil
}

// ephemeralLow is the low end of the kernel's ephemeral port range, read
// once per process.
var ephemeralLow = sync.OnceValue(readEphemeralLow)

func readEphemeralLow() int {
	b, err := os.ReadFile(portRangeFile)
	if err != nil {
		return ephemeralDefault
	}
	fields := strings.Fields(string(b)) // "32768	60999"
	if len(fields) == 0 {
		return ephemeralDefault
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil {
		return ephemeralDefault
	}
	return low
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	for len(out) < n {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

func loopback(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
