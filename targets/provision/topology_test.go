package provision

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// forwarder is the test's replication link: a TCP relay that can be cut
// (Toxiproxy is sim/'s, which targets/ may not import; the scenarios'
// tests drive the topology through it).
type forwarder struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newForwarder(t *testing.T, upstream string) *forwarder {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &forwarder{ln: ln}
	go f.serve(upstream)
	t.Cleanup(f.cut)
	return f
}

func (f *forwarder) serve(upstream string) {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", upstream)
		if err != nil {
			c.Close()
			continue
		}
		f.mu.Lock()
		f.conns = append(f.conns, c, u)
		f.mu.Unlock()
		go func() { _, _ = io.Copy(u, c); u.Close() }()
		go func() { _, _ = io.Copy(c, u); c.Close() }()
	}
}

// cut closes the listener and every relayed connection.
func (f *forwarder) cut() {
	f.ln.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
}

// TestTopologyFailoverLosesUnreplicatedWrite: the replica is in sync
// through the link; a write made while the link is cut is acknowledged by
// the primary; the primary is SIGKILLed and the Sentinels promote the
// replica, which has the first write and not the second. Close leaves no
// process group and no dir behind.
func TestTopologyFailoverLosesUnreplicatedWrite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := testBase(t)
	var fw *forwarder
	t0 := time.Now()
	topo, err := StartRedisTopology(ctx, TopologyConfig{TempDir: base, Link: func(up string) (string, error) {
		fw = newForwarder(t, up)
		return fw.ln.Addr().String(), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("topology up in %v", time.Since(t0).Round(time.Millisecond))
	defer topo.Close()
	primary := redis.NewClient(&redis.Options{Addr: topo.Primary})
	defer primary.Close()
	if err := primary.Set(ctx, "kept", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := primary.Do(ctx, "WAIT", 1, 2000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d replicas, %v", n, err)
	}
	fw.cut()
	if err := primary.Set(ctx, "lost", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	sentinelURL := "redis://" + topo.Sentinels[0] + "/0?master_name=" + TopologyMaster + "&addr=" + topo.Sentinels[1]
	if err := pingRedisURL(ctx, sentinelURL); err != nil {
		t.Fatalf("a real Sentinel's URL: %v", err)
	}
	if err := pingRedisURL(ctx, "redis://"+topo.Sentinels[0]+"/0?master_name=nosuch"); err == nil || !strings.Contains(err.Error(), "redis sentinel at") {
		t.Errorf("a master the Sentinels do not know: %v", err)
	}
	t1 := time.Now()
	if err := topo.KillPrimary(); err != nil {
		t.Fatal(err)
	}
	forced, err := topo.AwaitFailover(ctx, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("failover in %v (forced: %v)", time.Since(t1).Round(time.Millisecond), forced)
	promoted := redis.NewClient(&redis.Options{Addr: topo.Replica})
	defer promoted.Close()
	if n, err := promoted.Exists(ctx, "kept").Result(); err != nil || n != 1 {
		t.Errorf("the promoted replica lacks the replicated write: %d, %v", n, err)
	}
	if n, err := promoted.Exists(ctx, "lost").Result(); err != nil || n != 0 {
		t.Errorf("the promoted replica has the write made while the link was cut: %d, %v", n, err)
	}
	target, err := ParseRedisURL(sentinelURL)
	if err != nil {
		t.Fatal(err)
	}
	viaSentinel := redis.NewFailoverClient(target.Sentinel)
	defer viaSentinel.Close()
	if got, err := viaSentinel.Get(ctx, "kept").Result(); err != nil || got != "1" {
		t.Errorf("through Sentinel after the failover: %q, %v", got, err)
	}
	if err := topo.Close(); err != nil {
		t.Fatal(err)
	}
	if err := checkGone(topo.parts); err != nil {
		t.Fatal(err)
	}
	if left := dirEntries(t, base); len(left) != 0 {
		t.Errorf("left in the base dir: %v", left)
	}
	if _, err := os.Stat(base); errors.Is(err, os.ErrNotExist) {
		t.Fatal("base dir removed")
	}
}

// TestTopologyForcesAStalledFailover: the Sentinels are told to wait ten
// minutes before they call the primary down, so that no election starts,
// as when a vote elects no leader; AwaitFailover forces the failover
// after electionWait and the replica is promoted within the limit.
func TestTopologyForcesAStalledFailover(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topo, err := StartRedisTopology(ctx, TopologyConfig{TempDir: testBase(t), Link: func(up string) (string, error) {
		return newForwarder(t, up).ln.Addr().String(), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	for _, s := range sentinelClients(topo.Sentinels) {
		err := s.Set(ctx, TopologyMaster, "down-after-milliseconds", "600000").Err()
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := topo.KillPrimary(); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	forced, err := topo.AwaitFailover(ctx, 15*time.Second)
	if err != nil || !forced {
		t.Fatalf("forced %v, %v; want a forced failover", forced, err)
	}
	if d := time.Since(t0); d < electionWait {
		t.Errorf("forced after %v; want Sentinel's own election left %v first", d, electionWait)
	}
}
