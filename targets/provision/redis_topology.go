package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// The replicated Redis topology's settings: a failover is over in about a
// second once the primary dies (down-after 200ms, then the election, then
// the promotion, which Sentinel sees on its next INFO).
const (
	// TopologyMaster is the name the Sentinels monitor the primary by.
	TopologyMaster    = "idemchaos"
	topologySentinels = 3
	topologyQuorum    = 2
	topologyDownAfter = 200 * time.Millisecond
	// topologyFailoverTimeout is long: Sentinel points a replica whose
	// master address is not the one it monitors (ours goes through a proxy)
	// back at the primary itself once the replica has been unchanged this
	// long, and a topology lives for one run, well under it.
	topologyFailoverTimeout = 30 * time.Second
	topologyStartAttempts   = 3 // new ports each time a node exits early
	topologyReadyLimit      = 10 * time.Second
)

// TopologyConfig says where a replicated Redis starts and how its
// replication link is made.
type TopologyConfig struct {
	TempDir string    // base of the nodes' dirs; "" = os.TempDir()
	Log     io.Writer // progress lines; nil = discard
	// Link puts a proxy in front of upstream (the primary's host:port) and
	// returns the host:port to dial instead: the replica replicates
	// through it, so that a fault on it cuts or slows replication alone.
	Link func(upstream string) (string, error)
}

// RedisTopology is a replicated Redis on loopback: a primary, one replica
// whose replication link goes through the caller's proxy, and three
// Sentinels (quorum 2) that promote the replica when the primary dies.
// Every node is a local redis-server in a throwaway dir of its own, in its
// own process group with a parent-death signal, its pid recorded for Sweep,
// as a single local Redis is. Local binaries only: there is no Docker path
// (Sentinel in a container announces addresses the host cannot dial).
type RedisTopology struct {
	Primary   string   // host:port of the primary it started with
	Replica   string   // host:port of the replica
	ReplLink  string   // host:port the replica replicates from (the proxy)
	Sentinels []string // host:port of every Sentinel

	parts  []*part // primary, replica, then the Sentinels
	closed bool
}

// StartRedisTopology sweeps stale dirs under the base and starts the
// topology: it returns once the replica is in sync through the link and
// every Sentinel knows the primary, the replica and the other two. On any
// failure what was started is stopped.
func StartRedisTopology(ctx context.Context, cfg TopologyConfig) (*RedisTopology, error) {
	st := newStarter(Config{TempDir: cfg.TempDir, Log: cfg.Log})
	if _, err := Sweep(st.base); err != nil {
		st.log.printf("sweep %s: %v", st.base, err)
	}
	bin, err := st.find.redisPath()
	if err != nil {
		return nil, &UnavailableError{Service: "redis", Hint: redisInstallHint, Err: err}
	}
	for attempt := 1; ; attempt++ {
		t, err := startTopology(ctx, st, bin, cfg.Link)
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, errExited) || ctx.Err() != nil || attempt == topologyStartAttempts {
			return nil, err
		}
		st.log.printf("redis topology attempt %d: %s; trying new ports", attempt, retryReason(err))
	}
}

// startTopology is one attempt on fresh ports.
func startTopology(ctx context.Context, st *starter, bin string, link func(string) (string, error)) (*RedisTopology, error) {
	ports, err := freePorts(2 + topologySentinels)
	if err != nil {
		return nil, err
	}
	t := &RedisTopology{Primary: loopback(ports[0]), Replica: loopback(ports[1])}
	for i := range topologySentinels {
		t.Sentinels = append(t.Sentinels, loopback(ports[2+i]))
	}
	st.log.printf("starting redis topology on 127.0.0.1: primary %d, replica %d, sentinels %d %d %d ...", ports[0], ports[1], ports[2], ports[3], ports[4])
	if err := t.start(ctx, st, bin, link, ports); err != nil {
		return nil, errors.Join(err, t.Close())
	}
	return t, nil
}

func (t *RedisTopology) start(ctx context.Context, st *starter, bin string, link func(string) (string, error), ports []int) error {
	node := nodeArgs()
	if err := t.node(ctx, st, &localRedis{bin: bin, name: "redis-primary", args: node}, ports[0]); err != nil {
		return err
	}
	var err error
	if t.ReplLink, err = link(t.Primary); err != nil {
		return err
	}
	host, port, _ := strings.Cut(t.ReplLink, ":")
	replica := append(nodeArgs(), "--replicaof", host, port)
	if err := t.node(ctx, st, &localRedis{bin: bin, name: "redis-replica", args: replica}, ports[1]); err != nil {
		return err
	}
	if err := awaitInSync(ctx, t.Replica); err != nil {
		return err
	}
	for i := range topologySentinels {
		conf := sentinelConf(t.Primary, t.Replica, t.Sentinels, i)
		r := &localRedis{bin: bin, name: "redis-sentinel", conf: conf, args: []string{"--sentinel"}}
		if err := t.node(ctx, st, r, ports[2+i]); err != nil {
			return err
		}
	}
	return awaitSentinels(ctx, t.Sentinels, len(t.Sentinels)-1)
}

// nodeArgs are a data node's own settings: a full sync starts at once
// (Redis 7 waits 5s for more replicas to share a diskless one).
func nodeArgs() []string {
	return []string{"--repl-diskless-sync-delay", "0", "--repl-diskless-sync", "yes"}
}

// node starts one server in a dir of its own on port.
func (t *RedisTopology) node(ctx context.Context, st *starter, r *localRedis, port int) error {
	dir, err := newRunDir(st.base, redisDirPrefix)
	if err != nil {
		return err
	}
	r.dir = dir // r.log stays quiet: the topology's one line says what starts
	if r.conf != "" {
		if r.conf, err = writeConf(dir, r.conf); err != nil {
			os.RemoveAll(dir)
			return err
		}
	}
	_, p, err := r.serve(ctx, port)
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("%s: %w", r.name, err)
	}
	t.parts = append(t.parts, p)
	return nil
}

// KillPrimary kills the primary it started with (SIGKILL, as a host
// dies: nothing is flushed, nothing handed over) and waits until it is
// reaped.
func (t *RedisTopology) KillPrimary() error {
	p := t.parts[0].proc
	if err := syscall.Kill(p.pid(), syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill the primary (pid %d): %w", p.pid(), err)
	}
	if !p.waitFor(killWait) {
		return fmt.Errorf("primary (pid %d) still running after SIGKILL", p.pid())
	}
	return nil
}

// Close kills every node at once (SIGKILL: a throwaway topology has
// nothing to save, and a SIGTERM each, one after another, costs more than
// a run), waits until each is reaped and removes their dirs. It is
// idempotent; a nil topology is a no-op.
func (t *RedisTopology) Close() error {
	if t == nil || t.closed {
		return nil
	}
	t.closed = true
	for _, p := range t.parts {
		if !p.proc.exited() { // not reaped: the pid still names our group
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		}
	}
	var errs []error
	for i := len(t.parts) - 1; i >= 0; i-- {
		errs = append(errs, t.parts[i].stop())
	}
	return errors.Join(errs...)
}
