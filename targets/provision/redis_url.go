package provision

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// RedisTarget is a parsed Redis URL; exactly one field is set. The forms
// are go-redis v9's own (ParseURL, ParseFailoverURL, ParseClusterURL),
// told apart as go-redis cannot (all three take redis://):
//
//	redis://[user:pass@]host:port/db                           one server
//	redis://[user:pass@]sentinel:port/db?master_name=NAME&addr=sentinel2:port&addr=...
//	                                                            the primary Sentinel names NAME
//	redis+cluster://[user:pass@]node:port?addr=node2:port&...   a Redis Cluster
//
// rediss:// and rediss+cluster:// are the TLS forms; every other query
// parameter is go-redis's (dial_timeout=3s, pool_size=..., password=...
// for a Sentinel-managed primary's own password).
type RedisTarget struct {
	Node     *redis.Options
	Sentinel *redis.FailoverOptions
	Cluster  *redis.ClusterOptions
}

// clusterSuffix marks a Cluster URL's scheme.
const clusterSuffix = "+cluster"

// ParseRedisURL parses a Redis URL in one of RedisTarget's forms. Its
// errors are one line and never echo a password.
func ParseRedisURL(raw string) (RedisTarget, error) {
	if i := schemeEnd(raw); i > 0 {
		scheme := strings.ToLower(raw[:i-3])
		if base, ok := strings.CutSuffix(scheme, clusterSuffix); ok && (base == "redis" || base == "rediss") {
			return parseCluster(base + raw[i-3:])
		}
	}
	if u, err := url.Parse(raw); err != nil || !u.Query().Has("master_name") {
		opt, err := parseRedisURL(raw)
		if err != nil {
			return RedisTarget{}, err
		}
		return RedisTarget{Node: opt}, nil
	}
	if err := checkScheme("redis", raw, "redis", "rediss"); err != nil {
		return RedisTarget{}, err
	}
	fo, err := redis.ParseFailoverURL(raw)
	if err != nil {
		return RedisTarget{}, wrapLine(redactedErr(err, raw), "invalid redis Sentinel URL %q", redactAs(raw, legacyMask))
	}
	if fo.MasterName == "" {
		return RedisTarget{}, fmt.Errorf("invalid redis Sentinel URL %q: master_name is empty", redactAs(raw, legacyMask))
	}
	return RedisTarget{Sentinel: fo}, nil
}

// parseCluster parses a Cluster URL whose scheme is back to redis(s).
func parseCluster(raw string) (RedisTarget, error) {
	if _, err := url.Parse(raw); err != nil {
		return RedisTarget{}, errUnparsable("redis cluster", raw)
	}
	co, err := redis.ParseClusterURL(raw)
	if err != nil {
		return RedisTarget{}, wrapLine(redactedErr(err, raw), "invalid redis Cluster URL %q", redactAs(raw, legacyMask))
	}
	return RedisTarget{Cluster: co}, nil
}

// redactedErr is err with any password of raw masked.
func redactedErr(err error, raw string) error {
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, legacyMask)
		}
	}
	return fmt.Errorf("%s", msg)
}

// Kind names the target: "redis", "redis sentinel" or "redis cluster".
func (t RedisTarget) Kind() string {
	switch {
	case t.Sentinel != nil:
		return "redis sentinel"
	case t.Cluster != nil:
		return "redis cluster"
	}
	return "redis"
}

// ping checks a Sentinel-managed primary or a Cluster answers, through
// go-redis's own client for it, retrying nothing.
func (t RedisTarget) ping(ctx context.Context) error {
	var c redis.UniversalClient
	switch {
	case t.Sentinel != nil:
		o := *t.Sentinel
		o.MaxRetries, o.DialerRetries = -1, 1
		c = redis.NewFailoverClient(&o)
	case t.Cluster != nil:
		o := *t.Cluster
		o.MaxRetries, o.DialerRetries = -1, 1
		c = redis.NewClusterClient(&o)
	default:
		return redisPing(ctx, t.Node, 0)
	}
	defer c.Close()
	return c.Ping(ctx).Err()
}
