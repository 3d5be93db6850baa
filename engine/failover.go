package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// Bounds of the store events.
const (
	failoverLimit = 15 * time.Second // Sentinel's promotion after the kill
	replWait      = time.Second      // WAIT for the replica before the cut
	linkDownLimit = time.Second      // until the replica sees its link down
)

// SentinelSpec is where a replica's failover client asks for the primary.
type SentinelSpec struct {
	Master string
	Addrs  []string
}

// failoverRun is one run's replicated Redis: a fresh topology whose
// replication link is a Toxiproxy link, and what its store events did.
// A topology lives for one run: Sentinel allows a master one failover per
// twice its failover timeout, and points a replica back at the address it
// monitors (not our proxy) after one, so a fresh one is both simpler and,
// at about 300 ms, cheaper than a restore that waits that out.
type failoverRun struct {
	topo   *provision.RedisTopology
	link   *fault.Link
	prefix string
	since  func() time.Duration
	truth  *redis.Client // a failover client: the primary of the moment
	// promoted reads the replica this run saw promoted, directly: a
	// failover client that missed Sentinel's switch-master message still
	// dials the dead primary (seen on 2 busy cores)
	promoted *redis.Client
	seen     scenarios.FailoverSeen
}

// startFailover starts a topology whose replication goes through a link
// of this runner's.
func (r *Builtin) startFailover(ctx context.Context, prefix string) (*failoverRun, error) {
	f := &failoverRun{prefix: prefix}
	topo, err := provision.StartRedisTopology(ctx, provision.TopologyConfig{TempDir: r.env.TempDir, Log: r.env.Log,
		Link: func(upstream string) (string, error) {
			if f.link != nil { // an earlier attempt's, on other ports
				_ = f.link.Close()
				f.link = nil
			}
			l, err := r.link("repl", upstream)
			if err != nil {
				return "", err
			}
			f.link = l
			return l.Listen, nil
		}})
	if err != nil {
		if f.link != nil {
			err = errors.Join(err, f.link.Close())
		}
		return nil, err
	}
	f.topo = topo
	f.seen.OldPrimary, f.seen.NewPrimary = topo.Primary, topo.Primary
	f.truth = redis.NewFailoverClient(failoverOptions(f.sentinel(), controlConns))
	return f, nil
}

// sentinel is where clients find the primary.
func (f *failoverRun) sentinel() *SentinelSpec {
	if f == nil {
		return nil
	}
	return &SentinelSpec{Master: provision.TopologyMaster, Addrs: f.topo.Sentinels}
}

// failoverOptions are a failover client's: no retried command (a retried
// SET NX lies to its own sender), one dial per connection.
func failoverOptions(s *SentinelSpec, conns int) *redis.FailoverOptions {
	return &redis.FailoverOptions{MasterName: s.Master, SentinelAddrs: s.Addrs, MaxRetries: -1, DialerRetries: 1,
		PoolSize: conns, DialTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second, WriteTimeout: 3 * time.Second}
}

// event carries out one store event and records what it did.
func (f *failoverRun) event(ctx context.Context, e workload.StoreEvent) {
	var err error
	switch e.Action {
	case workload.ReplCut:
		err = f.cut(ctx)
	case workload.PrimaryKill:
		err = f.kill(ctx)
	}
	if err != nil && f.seen.Err == "" {
		f.seen.Err = err.Error()
	}
}

// cut waits until the replica has every write so far, then cuts the
// replication link and waits until the replica sees it down.
func (f *failoverRun) cut(ctx context.Context) error {
	primary := directClient(f.topo.Primary)
	defer primary.Close()
	n, err := primary.Do(ctx, "WAIT", 1, replWait.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("WAIT on the primary: %w", err)
	}
	f.seen.Replicated = n
	if err := f.link.Cut(); err != nil {
		return err
	}
	f.seen.CutAt = f.since()
	replica := directClient(f.topo.Replica)
	defer replica.Close()
	deadline := time.Now().Add(linkDownLimit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		info, err := provision.Replication(ctx, replica)
		if err == nil && info["master_link_status"] == "down" {
			f.seen.LinkDown = true
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return errors.New("the replica did not see its replication link down")
}

// kill writes the canary and lists the run's keys on the primary, kills
// it, waits for Sentinel's promotion, then looks on the new primary for
// what the old one held.
func (f *failoverRun) kill(ctx context.Context) error {
	primary := directClient(f.topo.Primary)
	canary := f.prefix + "canary"
	err := primary.Set(ctx, canary, "acknowledged", 0).Err()
	if err == nil {
		f.seen.Held, err = f.keys(ctx, primary)
	}
	primary.Close()
	if err != nil {
		return fmt.Errorf("before the kill: %w", err)
	}
	if err := f.topo.KillPrimary(); err != nil {
		return err
	}
	f.seen.KilledAt = f.since()
	forced, err := f.topo.AwaitFailover(ctx, failoverLimit)
	f.seen.Forced = forced
	if err != nil {
		return err
	}
	f.seen.Promoted, f.seen.PromotedAt, f.seen.NewPrimary = true, f.since(), f.topo.Replica
	f.promoted = directClient(f.topo.Replica)
	now, err := f.keys(ctx, f.promoted)
	if err != nil {
		return fmt.Errorf("after the failover: %w", err)
	}
	n, err := f.promoted.Exists(ctx, canary).Result()
	f.seen.CanaryLost = err == nil && n == 0
	for _, k := range f.seen.Held {
		if !slices.Contains(now, k) {
			f.seen.Lost = append(f.seen.Lost, k)
		}
	}
	return err
}

// keys lists the run's keys on one node, the prefix cut off, sorted,
// the canary left out.
func (f *failoverRun) keys(ctx context.Context, c *redis.Client) ([]string, error) {
	var out []string
	iter := c.Scan(ctx, 0, f.prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		if k := strings.TrimPrefix(iter.Val(), f.prefix); k != "canary" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, iter.Err()
}

// observed is what the events did; nil for a run without a topology.
func (f *failoverRun) observed() *scenarios.FailoverSeen {
	if f == nil {
		return nil
	}
	seen := f.seen
	return &seen
}

// close stops the topology and its link.
func (f *failoverRun) close() error {
	if f == nil {
		return nil
	}
	var promoted error
	if f.promoted != nil {
		promoted = f.promoted.Close()
	}
	return errors.Join(f.truth.Close(), promoted, f.topo.Close(), f.link.Close())
}

// directClient talks to one node, never through Sentinel, retrying nothing.
func directClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialerRetries: 1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
}

// events is the run's store events on its clock; nil without a topology.
func (f *failoverRun) events(since func() time.Duration) storeEvents {
	if f == nil {
		return nil
	}
	f.since = since
	return f.event
}

// truthOr is where the ground truth reads Redis: the replica promoted,
// else the primary of the moment, else the single Redis given.
func (f *failoverRun) truthOr(single *redis.Client) *redis.Client {
	switch {
	case f == nil:
		return single
	case f.promoted != nil:
		return f.promoted
	}
	return f.truth
}
