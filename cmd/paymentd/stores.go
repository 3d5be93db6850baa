package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// storeTimeout bounds one store round trip of paymentd's own (not a request's).
const storeTimeout = 5 * time.Second

// stores are the provisioned servers and paymentd's clients to them: a
// Postgres pool and a Redis client, or, for a strategy on InnoDB, the
// InnoDB ledger's pool on MariaDB alone.
type stores struct {
	services    *provision.Services
	postgresDSN string        // the database paymentd's ledger lives in; "" on InnoDB
	mysqlURL    string        // the MariaDB database of the InnoDB ledger; "" for the others
	pool        *pgxpool.Pool // nil on InnoDB
	rdb         *redis.Client // nil on InnoDB
	mysql       *sql.DB       // the InnoDB ledger's pool; nil for the others
}

// openStores provisions (or pings the given) Redis and Postgres, and a
// MariaDB for a strategy on InnoDB only, and opens sized clients to the
// stores the strategy uses. On error everything already opened is closed.
func openStores(ctx context.Context, c config, log io.Writer) (*stores, error) {
	services, err := provision.Start(ctx, provision.Config{RedisURL: c.redisURL, PostgresURL: c.postgresURL,
		MySQL: c.innoDB, MySQLURL: c.mysqlURL,
		NoDocker: c.noDocker, Log: log, DockerHost: os.Getenv("DOCKER_HOST"), PGBinDir: os.Getenv("PG_BINDIR"),
		ClusterCache: provision.ClusterCacheDir(os.Getenv("IDEMCHAOS_CLUSTER_CACHE"), userCacheDir())})
	if err != nil {
		return nil, envError(err)
	}
	s := &stores{services: services}
	if c.innoDB {
		s.mysqlURL = services.MySQLURL
		err = s.connectInnoDB(c)
	} else {
		s.postgresDSN = services.PostgresURL
		err = s.connect(ctx, c)
	}
	if err != nil {
		if cerr := s.close(); cerr != nil {
			err = fmt.Errorf("%w; cleanup: %v", err, cerr)
		}
		return nil, envError(err)
	}
	return s, nil
}

// connect opens the pool and the Redis client with explicit sizes. The Redis
// client never retries: a retried SET NX whose reply was lost lies to its
// own sender.
func (s *stores) connect(ctx context.Context, c config) error {
	cfg, err := pgxpool.ParseConfig(s.postgresDSN)
	if err != nil {
		return fmt.Errorf("postgres DSN %s: %w", redactURL(s.postgresDSN), err)
	}
	cfg.MaxConns = int32(c.pgConns)
	cfg.ConnConfig.ConnectTimeout = storeTimeout
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return fmt.Errorf("postgres pool: %w", err)
	}
	opts, err := redis.ParseURL(s.services.RedisURL)
	if err != nil {
		return fmt.Errorf("redis URL %s: %w", redactURL(s.services.RedisURL), err)
	}
	opts.MaxRetries, opts.PoolSize = -1, c.redisConns
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
	s.rdb = redis.NewClient(opts)
	return nil
}

// prepare migrates the ledger schema, empties it on --reset and opens the
// accounts that do not exist yet.
func (s *stores) prepare(ctx context.Context, c config) error {
	ctx, cancel := context.WithTimeout(ctx, 2*storeTimeout)
	defer cancel()
	if s.mysql != nil {
		return s.prepareInnoDB(ctx, c)
	}
	if err := ledger.Migrate(ctx, s.pool); err != nil {
		return err
	}
	if c.reset {
		if err := ledger.Reset(ctx, s.pool); err != nil {
			return err
		}
	}
	for _, a := range c.accounts {
		if err := openIfAbsent(ctx, s.pool, a, c.currency); err != nil {
			return err
		}
	}
	return nil
}

func openIfAbsent(ctx context.Context, pool *pgxpool.Pool, a account, currency string) error {
	_, err := ledger.Balance(ctx, pool, a.id)
	if !errors.Is(err, ledger.ErrUnknownAccount) {
		return err
	}
	return ledger.Open(ctx, pool, a.id, currency, a.opening)
}

// ping checks Postgres, and Redis when the strategy uses it (or MariaDB
// alone for a strategy on InnoDB), for /healthz.
func (s *stores) ping(ctx context.Context, withRedis bool) error {
	if s.mysql != nil {
		if err := s.mysql.PingContext(ctx); err != nil {
			return fmt.Errorf("mysql: %w", err)
		}
		return nil
	}
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if !withRedis {
		return nil
	}
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	return nil
}

// close closes the clients, then stops whatever provision started.
func (s *stores) close() error {
	if s.rdb != nil {
		_ = s.rdb.Close() // in-flight commands are over: the server has shut down
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if s.mysql != nil {
		_ = s.mysql.Close()
	}
	return s.services.Close()
}

// userCacheDir is the user's cache dir, "" when there is none.
func userCacheDir() string {
	d, _ := os.UserCacheDir()
	return d
}
