package fault_test

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/fault"
)

// lineServer answers every line it reads with "ok" and sends what it read
// on got.
func lineServer(t *testing.T) (string, <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewScanner(c)
				for r.Scan() {
					got <- r.Text()
					if _, err := c.Write([]byte("ok\n")); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), got
}

// TestLoseRepliesLetsALateCommitThrough: the replies are lost from the
// moment LoseReplies is injected, but a statement the client sends well
// after that (a loaded client's COMMIT, 300 ms later) still reaches the
// store; its reply is lost, and the connection closes soon after it.
func TestLoseRepliesLetsALateCommitThrough(t *testing.T) {
	addr, got := lineServer(t)
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close()
	link, err := tp.Link("db", addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", link.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := c.Write([]byte("BEGIN\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); err != nil || line != "ok\n" {
		t.Fatalf("before the fault: %q, %v", line, err)
	}
	<-got
	if err := link.Inject(fault.LoseReplies, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the client is slow to send its COMMIT
	if _, err := c.Write([]byte("COMMIT\n")); err != nil {
		t.Fatalf("the connection closed before the COMMIT was sent: %v", err)
	}
	select {
	case s := <-got:
		if s != "COMMIT" {
			t.Fatalf("the store got %q", s)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the COMMIT sent 300 ms into the fault never reached the store")
	}
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	t0 := time.Now()
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("the COMMIT's reply %q came through", line)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the connection stayed open 3 s after the lost reply")
	}
	t.Logf("closed %v after the COMMIT was read", time.Since(t0).Round(time.Millisecond))
}
