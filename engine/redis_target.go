package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/provision"
)

// errCluster: the built-in strategies read a key's records back with SCAN
// and keep one *redis.Client, which a Cluster does not give.
var errCluster = errors.New("redis url: a Redis Cluster is accepted by --redis-url's parser but the built-in strategies need one Redis node or a Sentinel-managed primary (redis://sentinel:port/0?master_name=NAME)")

// parseTarget parses a Redis URL the built-in strategies can use: one
// node or a Sentinel-managed primary.
func parseTarget(raw string) (provision.RedisTarget, error) {
	t, err := provision.ParseRedisURL(raw)
	if err != nil {
		return t, fmt.Errorf("redis url: %w", err)
	}
	if t.Cluster != nil {
		return t, errCluster
	}
	return t, nil
}

// controlClient is a runner's own client of the Redis at raw (through
// Sentinel for a Sentinel URL), retrying nothing.
func controlClient(raw string, conns int) (*redis.Client, error) {
	t, err := parseTarget(raw)
	if err != nil {
		return nil, err
	}
	if t.Sentinel != nil {
		o := *t.Sentinel
		o.MaxRetries, o.PoolSize = -1, conns
		return redis.NewFailoverClient(&o), nil
	}
	t.Node.MaxRetries, t.Node.PoolSize = -1, conns
	return redis.NewClient(t.Node), nil
}

// primaryAddr is where the Redis at raw serves writes now: the node, or
// the primary its Sentinels name.
func primaryAddr(ctx context.Context, raw string) (string, error) {
	t, err := parseTarget(raw)
	if err != nil {
		return "", err
	}
	if t.Node != nil {
		return t.Node.Addr, nil
	}
	var errs []error
	for _, addr := range t.Sentinel.SentinelAddrs {
		s := redis.NewSentinelClient(&redis.Options{Addr: addr, Username: t.Sentinel.SentinelUsername,
			Password: t.Sentinel.SentinelPassword, TLSConfig: t.Sentinel.TLSConfig, DialTimeout: 2 * time.Second,
			ReadTimeout: 2 * time.Second, MaxRetries: -1, DialerRetries: 1, PoolSize: 1})
		hp, err := s.GetMasterAddrByName(ctx, t.Sentinel.MasterName).Result()
		s.Close()
		if err == nil {
			return net.JoinHostPort(hp[0], hp[1]), nil
		}
		errs = append(errs, fmt.Errorf("sentinel %s: %w", addr, err))
	}
	return "", fmt.Errorf("no Sentinel names primary %q: %w", t.Sentinel.MasterName, errors.Join(errs...))
}

// sentinelReplicaOptions are a replica's failover client for a Sentinel
// URL; with RedisAddr set, a connection to the primary of the cell's start
// (RedisPrimary) dials it instead (the store link in front of that
// primary); the Sentinels, and a primary promoted since, are dialed as
// they are (go-redis dials both through the one Dialer).
func sentinelReplicaOptions(o redis.FailoverOptions, s ReplicaSpec) *redis.FailoverOptions {
	o.MaxRetries, o.PoolSize = -1, cmp.Or(s.RedisConns, redisConnsPerReplica)
	o.DialTimeout = cmp.Or(s.RedisTimeout, 2*time.Second)
	o.ReadTimeout = cmp.Or(s.RedisTimeout, 3*time.Second)
	o.WriteTimeout = o.ReadTimeout
	o.DialerRetries = cmp.Or(s.RedisDials, 1)
	if via, primary := s.RedisAddr, s.RedisPrimary; via != "" {
		d := net.Dialer{Timeout: o.DialTimeout}
		o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == primary {
				addr = via
			}
			return d.DialContext(ctx, network, addr)
		}
	}
	return &o
}
