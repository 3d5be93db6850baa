package engine

import (
	"testing"
	"time"
)

// The runner's replicas and bench's get the same store-client rules, each
// with its own pool sizes and Redis patience.
func TestReplicaStoreOptions(t *testing.T) {
	base := ReplicaSpec{PostgresDSN: "postgres://u@db:5432/x", RedisURL: "redis://cache:6379/0"}
	linked, direct := base, base
	linked.PgAddr, linked.RedisAddr = "127.0.0.1:7001", "127.0.0.1:7002"
	direct.PgConns, direct.RedisConns, direct.RedisTimeout, direct.RedisDials = 8, 4, time.Second, 5
	for _, c := range []struct {
		name                string
		s                   ReplicaSpec
		pgHost, redisAddr   string
		pgConns, redisConns int
		dial, io            time.Duration
		pgPort, dials       int
	}{
		{"linked", linked, "127.0.0.1", "127.0.0.1:7002", 16, 32, 2 * time.Second, 3 * time.Second, 7001, 1},
		{"direct", direct, "db", "cache:6379", 8, 4, time.Second, time.Second, 5432, 5},
	} {
		cfg, err := pgConfig(c.s)
		if err != nil {
			t.Fatal(err)
		}
		cc := cfg.ConnConfig
		if cc.Host != c.pgHost || int(cc.Port) != c.pgPort || int(cfg.MaxConns) != c.pgConns || cc.ConnectTimeout != 2*time.Second {
			t.Errorf("%s: postgres %s:%d, %d conns, %s to connect", c.name, cc.Host, cc.Port, cfg.MaxConns, cc.ConnectTimeout)
		}
		o, err := redisOptions(c.s)
		if err != nil {
			t.Fatal(err)
		}
		if o.Addr != c.redisAddr || o.PoolSize != c.redisConns || o.MaxRetries != -1 || o.DialerRetries != c.dials ||
			o.DialTimeout != c.dial || o.ReadTimeout != c.io || o.WriteTimeout != c.io {
			t.Errorf("%s: redis options %+v", c.name, o)
		}
	}
}
