package engine

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

// Pool sizes per replica unless the spec sets them, set explicitly: pgxpool
// would default to 4 on two cores and go-redis to 20.
const (
	pgConnsPerReplica    = 16
	redisConnsPerReplica = 32
)

// pgPool opens the replica's own Postgres pool.
func pgPool(ctx context.Context, s ReplicaSpec) (*pgxpool.Pool, error) {
	cfg, err := pgConfig(s)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres pool: %w", err)
	}
	return pool, nil
}

// standbyPool opens the replica's pool on the hot standby, dialed directly.
func standbyPool(ctx context.Context, s ReplicaSpec) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(s.StandbyDSN)
	if err != nil {
		return nil, fmt.Errorf("standby dsn: %w", err)
	}
	cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	cfg.MaxConns = int32(cmp.Or(s.PgConns, pgConnsPerReplica))
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("standby pool: %w", err)
	}
	return pool, nil
}

func pgConfig(s ReplicaSpec) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(s.PostgresDSN)
	if err != nil {
		return nil, fmt.Errorf("postgres dsn: %w", err)
	}
	if s.PgAddr != "" {
		host, port, err := net.SplitHostPort(s.PgAddr)
		if err != nil {
			return nil, fmt.Errorf("postgres address: %w", err)
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("postgres port: %w", err)
		}
		cfg.ConnConfig.Host, cfg.ConnConfig.Port = host, uint16(p)
	}
	cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	cfg.MaxConns = int32(cmp.Or(s.PgConns, pgConnsPerReplica))
	return cfg, nil
}

// redisClient opens the replica's own Redis client.
func redisClient(s ReplicaSpec) (*redis.Client, error) {
	if s.Sentinel != nil {
		return redis.NewFailoverClient(failoverOptions(s.Sentinel, cmp.Or(s.RedisConns, redisConnsPerReplica))), nil
	}
	t, err := parseTarget(s.RedisURL)
	if err != nil {
		return nil, err
	}
	if t.Sentinel != nil {
		return redis.NewFailoverClient(sentinelReplicaOptions(*t.Sentinel, s)), nil
	}
	opts, err := redisOptions(s)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opts), nil
}

func redisOptions(s ReplicaSpec) (*redis.Options, error) {
	opts, err := redis.ParseURL(s.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opts.Addr = cmp.Or(s.RedisAddr, opts.Addr)
	opts.MaxRetries, opts.PoolSize = -1, cmp.Or(s.RedisConns, redisConnsPerReplica) // a retried SET NX lies to its own sender
	opts.DialTimeout = cmp.Or(s.RedisTimeout, 2*time.Second)
	opts.ReadTimeout = cmp.Or(s.RedisTimeout, 3*time.Second)
	opts.WriteTimeout = opts.ReadTimeout
	opts.DialerRetries = cmp.Or(s.RedisDials, 1) // a cut link fails at once instead of after five dials
	return opts, nil
}
