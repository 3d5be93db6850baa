package provision

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// sentinelClients are one-off clients of the Sentinels at addrs.
func sentinelClients(addrs []string) []*redis.SentinelClient {
	var out []*redis.SentinelClient
	for _, addr := range addrs {
		out = append(out, redis.NewSentinelClient(&redis.Options{Addr: addr, DialTimeout: 200 * time.Millisecond,
			ReadTimeout: 500 * time.Millisecond, MaxRetries: -1, DialerRetries: 1, PoolSize: 1}))
	}
	return out
}

// force asks the Sentinels, one after another, to fail over without a
// vote (SENTINEL FAILOVER): the same promotion of the same replica as an
// elected leader's. It does nothing once the replica is a primary (the
// failover is done; the Sentinels only have to learn it), and stops at
// the first Sentinel that starts one; a Sentinel already failing over
// answers INPROG, and the next is asked.
func force(ctx context.Context, replica *redis.Client, sentinels []*redis.SentinelClient) (bool, error) {
	info, err := Replication(ctx, replica)
	if err != nil || info["role"] == "master" {
		return false, err
	}
	var errs []string
	for _, s := range sentinels {
		err := s.Failover(ctx, TopologyMaster).Err()
		if err == nil {
			return true, nil
		}
		errs = append(errs, err.Error())
	}
	return false, fmt.Errorf("SENTINEL FAILOVER: %s", strings.Join(errs, "; "))
}
