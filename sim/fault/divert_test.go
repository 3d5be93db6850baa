package fault_test

import (
	"bufio"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/fault"
)

// echo is an upstream that answers each line with itself and counts the
// connections it was given.
type echo struct {
	ln    net.Listener
	conns atomic.Int32
}

func startEcho(t *testing.T) *echo {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echo{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.conns.Add(1)
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return e
}

// ask sends a line on conn and reads its echo.
func ask(conn net.Conn, line string) error {
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, line+"\n"); err != nil {
		return err
	}
	_, err := bufio.NewReader(conn).ReadString('\n')
	return err
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestDivertCountsWhatMeetsTheCut: a diverted link closes the connections
// open through it and keeps listening; a connection made while it is cut
// never reaches the upstream and is counted with the bytes its client
// sent; a healed link reaches its upstream again, and counts nothing more.
func TestDivertCountsWhatMeetsTheCut(t *testing.T) {
	up := startEcho(t)
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	link, err := tp.Link("store", up.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	open := dial(t, link.Listen)
	if err := ask(open, "before"); err != nil {
		t.Fatalf("through the whole link: %v", err)
	}
	if err := link.Divert(); err != nil {
		t.Fatal(err)
	}
	if err := ask(open, "pooled"); err == nil {
		t.Error("a connection open before the cut still reaches the upstream")
	}
	if err := ask(dial(t, link.Listen), "during"); err == nil {
		t.Error("a connection made during the cut reached the upstream")
	}
	if got := link.Diverted(); got.Conns != 1 || got.Bytes <= 0 || got.Bytes > int64(len("during\n")) {
		t.Errorf("diverted: %+v; want the 1 connection of the cut, with what it sent", got)
	}
	if err := link.Heal(); err != nil {
		t.Fatal(err)
	}
	if err := ask(dial(t, link.Listen), "after"); err != nil {
		t.Errorf("through the healed link: %v", err)
	}
	if got := link.Diverted(); got.Conns != 1 {
		t.Errorf("diverted after the heal: %+v; want the 1 connection of the cut", got)
	}
	if n := up.conns.Load(); n != 2 {
		t.Errorf("the upstream was given %d connections; want 2 (before and after the cut)", n)
	}
}

// TestExistingHealsALinkLeftDiverted: a run killed while a user's proxy was
// diverted leaves it in front of that run's sink; the next run's
// Existing puts it back in front of its own upstream.
func TestExistingHealsALinkLeftDiverted(t *testing.T) {
	up := startEcho(t)
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	own, err := tp.Link("users-pg", up.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	users, err := fault.External(tp.URL)
	if err != nil {
		t.Fatal(err)
	}
	killed, err := users.Existing("users-pg")
	if err != nil {
		t.Fatal(err)
	}
	if err := killed.Divert(); err != nil {
		t.Fatal(err)
	}
	if err := ask(dial(t, own.Listen), "cut"); err == nil {
		t.Fatal("a connection through the diverted proxy reached the upstream")
	}
	if _, err := users.Existing("users-pg"); err != nil {
		t.Fatal(err)
	}
	if err := ask(dial(t, own.Listen), "next run"); err != nil {
		t.Errorf("the proxy after the next run took hold of it: %v; want its upstream reached", err)
	}
}
