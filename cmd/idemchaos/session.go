package main

import (
	"context"
	"io"
	"os"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// open provisions the stores the flags say, Toxiproxy and one Builtin
// (with a fresh database) per worker; a failure is an environment error,
// after the provisioning lines (c.storeLog). A MariaDB comes too only
// when one of strategies is on InnoDB.
func open(ctx context.Context, c common, workers int, stderr io.Writer, strategies ...string) (*engine.Session, error) {
	log := c.storeLog(stderr)
	s, err := engine.Open(ctx, c.stores(strategies...), workers, log)
	if err != nil {
		log.show(ctx)
		return nil, envError(err)
	}
	return s, nil
}

// startStores starts the stores the flags say, for a command that deploys
// what it runs itself (no session); a failure is an environment error,
// after the provisioning lines (c.storeLog).
func startStores(ctx context.Context, c common, stderr io.Writer) (*provision.Services, error) {
	log := c.storeLog(stderr)
	cfg := c.stores()
	cfg.Log = log
	services, err := provision.Start(ctx, cfg)
	if err != nil {
		log.show(ctx)
		return nil, envError(err)
	}
	return services, nil
}

// stores is where the flags say the stores come from; the environment
// names a Docker engine (DOCKER_HOST), the Postgres binaries (PG_BINDIR)
// and the cluster cache (clusterCache).
// A MySQL-family server (--mysql-url, else Docker or a local MariaDB) is
// asked for only when one of strategies is on InnoDB: a run of the others
// neither starts nor reaches one.
func (c common) stores(strategies ...string) provision.Config {
	cfg := provision.Config{RedisURL: c.redisURL, PostgresURL: c.postgresURL, NoDocker: c.noDocker,
		DockerHost: os.Getenv("DOCKER_HOST"), PGBinDir: os.Getenv("PG_BINDIR"), ClusterCache: clusterCache()}
	if engine.NeedsMySQL(strategies...) {
		cfg.MySQL, cfg.MySQLURL = true, c.mysqlURL
	}
	return cfg
}

// clusterCache is where a started Postgres's fresh cluster is kept for the
// next start: IDEMCHAOS_CLUSTER_CACHE ("off": nowhere), else under the
// user's cache dir (docs/stores.md).
func clusterCache() string {
	user, _ := os.UserCacheDir()
	return provision.ClusterCacheDir(os.Getenv("IDEMCHAOS_CLUSTER_CACHE"), user)
}
