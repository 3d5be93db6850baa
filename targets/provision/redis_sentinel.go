package provision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	sentinelConfFile  = "sentinel.conf"
	topologyPollEvery = 10 * time.Millisecond
	// electionWait is how long AwaitFailover leaves the failover to
	// Sentinel's own election: one takes about 2 s here, idle or loaded,
	// but a vote that elects no leader (every Sentinel voting for itself)
	// holds each Sentinel back for twice the failover timeout, a minute.
	electionWait = 5 * time.Second
)

// sentinelConf is Sentinel i's config file: it monitors the primary and
// already knows the replica and the other Sentinels, so that it needs no
// discovery round (INFO every 10s, hello every 2s) before it can fail over.
func sentinelConf(primary, replica string, sentinels []string, i int) string {
	ph, pp, _ := strings.Cut(primary, ":")
	rh, rp, _ := strings.Cut(replica, ":")
	var b strings.Builder
	fmt.Fprintf(&b, "sentinel myid %s\n", sentinelID(i))
	fmt.Fprintf(&b, "sentinel monitor %s %s %s %d\n", TopologyMaster, ph, pp, topologyQuorum)
	fmt.Fprintf(&b, "sentinel down-after-milliseconds %s %d\n", TopologyMaster, topologyDownAfter.Milliseconds())
	fmt.Fprintf(&b, "sentinel failover-timeout %s %d\n", TopologyMaster, topologyFailoverTimeout.Milliseconds())
	fmt.Fprintf(&b, "sentinel known-replica %s %s %s\n", TopologyMaster, rh, rp)
	for j, s := range sentinels {
		if j != i {
			sh, sp, _ := strings.Cut(s, ":")
			fmt.Fprintf(&b, "sentinel known-sentinel %s %s %s %s\n", TopologyMaster, sh, sp, sentinelID(j))
		}
	}
	return b.String()
}

// sentinelID is Sentinel i's run id: 40 hex digits, fixed so that the
// others' config files can name it.
func sentinelID(i int) string { return fmt.Sprintf("%040x", 0x1dc0+i) }

// writeConf writes a config file into dir; Sentinel rewrites it as its
// state changes.
func writeConf(dir, content string) (string, error) {
	path := filepath.Join(dir, sentinelConfFile)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return "", fmt.Errorf("write sentinel config: %w", err)
	}
	return path, nil
}

// topologyClient is a one-off client that retries nothing.
func topologyClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond,
		MaxRetries: -1, DialerRetries: 1, PoolSize: 1})
}

// awaitInSync waits until the replica's link to its primary is up.
func awaitInSync(ctx context.Context, replica string) error {
	c := topologyClient(replica)
	defer c.Close()
	return poll(ctx, topologyReadyLimit, topologyPollEvery, nil, func(ctx context.Context) error {
		info, err := Replication(ctx, c)
		if err != nil {
			return err
		}
		if info["master_link_status"] != "up" {
			return fmt.Errorf("replica %s: master_link_status %q", replica, info["master_link_status"])
		}
		return nil
	})
}

// awaitSentinels waits until every Sentinel sees the primary up, one
// replica and others other Sentinels.
func awaitSentinels(ctx context.Context, sentinels []string, others int) error {
	clients := sentinelClients(sentinels)
	defer func() {
		for _, s := range clients {
			s.Close()
		}
	}()
	for i, s := range clients {
		addr := sentinels[i]
		err := poll(ctx, topologyReadyLimit, topologyPollEvery, nil, func(ctx context.Context) error {
			m, err := s.Master(ctx, TopologyMaster).Result()
			if err != nil {
				return err
			}
			if m["flags"] != "master" || m["num-slaves"] != "1" || m["num-other-sentinels"] != strconv.Itoa(others) {
				return fmt.Errorf("sentinel %s: flags %s, %s replicas, %s other sentinels", addr, m["flags"], m["num-slaves"], m["num-other-sentinels"])
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Replication is a node's INFO replication as fields (role,
// master_link_status, master_repl_offset, ...).
func Replication(ctx context.Context, c *redis.Client) (map[string]string, error) {
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			out[k] = v
		}
	}
	return out, nil
}

// AwaitFailover waits up to limit until every Sentinel names the replica
// as the primary and the replica says it is one. When Sentinel's own
// election has not promoted the replica after electionWait, it forces the
// failover (SENTINEL FAILOVER) and says so with forced. The error says
// how far the failover got.
func (t *RedisTopology) AwaitFailover(ctx context.Context, limit time.Duration) (forced bool, err error) {
	c := topologyClient(t.Replica)
	defer c.Close()
	sentinels := sentinelClients(t.Sentinels)
	defer func() {
		for _, s := range sentinels {
			s.Close()
		}
	}()
	start, tried := time.Now(), time.Time{}
	var forceErr error
	err = poll(ctx, limit, topologyPollEvery, nil, func(ctx context.Context) error {
		err := t.failedOver(ctx, c, sentinels)
		if err != nil && !forced && time.Since(start) >= electionWait && time.Since(tried) >= time.Second {
			tried = time.Now()
			forced, forceErr = force(ctx, c, sentinels)
		}
		return err
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		if forceErr != nil {
			err = fmt.Errorf("%w; forcing it: %w", err, forceErr)
		}
		return forced, fmt.Errorf("no failover: %w", err)
	}
	return forced, err
}

// failedOver says why the failover is not over yet, nil once it is.
func (t *RedisTopology) failedOver(ctx context.Context, replica *redis.Client, sentinels []*redis.SentinelClient) error {
	for i, s := range sentinels {
		addr, err := s.GetMasterAddrByName(ctx, TopologyMaster).Result()
		if err != nil {
			return err
		}
		if got := strings.Join(addr, ":"); got != t.Replica {
			return fmt.Errorf("sentinel %s still names %s", t.Sentinels[i], got)
		}
	}
	info, err := Replication(ctx, replica)
	if err != nil {
		return err
	}
	if info["role"] != "master" {
		return fmt.Errorf("the replica's role is %s", info["role"])
	}
	return nil
}
