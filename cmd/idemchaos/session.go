package main

import (
	"context"
	"io"
	"os"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// open provisions the stores the flags say, Toxiproxy and one Builtin
// (with a fresh database) per worker; a failure is an environment error.
func open(ctx context.Context, c common, workers int, log io.Writer) (*engine.Session, error) {
	s, err := engine.Open(ctx, c.stores(), workers, log)
	if err != nil {
		return nil, envError(err)
	}
	return s, nil
}

// stores is where the flags say the stores come from; the environment
// names a Docker engine (DOCKER_HOST) and the Postgres binaries (PG_BINDIR).
func (c common) stores() provision.Config {
	return provision.Config{RedisURL: c.redisURL, PostgresURL: c.postgresURL, NoDocker: c.noDocker,
		DockerHost: os.Getenv("DOCKER_HOST"), PGBinDir: os.Getenv("PG_BINDIR")}
}
