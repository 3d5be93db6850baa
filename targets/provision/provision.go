// Package provision finds or starts the real Redis and PostgreSQL servers
// that idemchaos runs its scenarios against, and, when asked, a MySQL-family
// server (MariaDB), the second SQL engine.
//
// For each store, Start tries, in order: a URL given by the user (pinged,
// never started), a Docker engine through dockertest (Config.DockerHost,
// else /var/run/docker.sock; used only when it answers a ping within about
// 2 s), and finally local binaries (redis-server, initdb and postgres,
// searched in Config.PGBinDir first, then PATH, pg_config --bindir and the
// usual install dirs) started in a throwaway directory on free loopback
// ports. A MySQL-family server, when Config.MySQL or Config.MySQLURL asks
// for one, comes last, the same way: a URL, the mariadb:10.11 image, or
// mariadb-install-db and mariadbd (PATH, /usr/sbin, /usr/bin,
// /usr/local/bin). Everything binds to 127.0.0.1. When nothing can serve a
// store, Start returns an *UnavailableError carrying the exact install
// command.
//
// The package takes no settings from flags or environment variables:
// everything comes in through Config, which cmd/ fills (e.g. DockerHost
// from $DOCKER_HOST, PGBinDir from $PG_BINDIR). The only exceptions are
// outside its code: dockertest reads DOCKER_CERT_PATH, and started servers
// inherit the process environment. For tests, provisiontest.FromEnv is the
// one place that reads the environment.
//
// Postgres refuses to run as root: when the process runs as root, initdb
// and postgres are started as the "postgres" user (or "nobody"), and the
// data directory is created under a directory that user can traverse.
// mariadb-install-db and mariadbd are run the same way, as the "mysql" user
// (or "nobody"). Processes are started in their own process group with a
// parent-death signal, and data directories left behind by a killed run are
// removed by Sweep, which Start calls first.
//
// StartRedisTopology starts a replicated Redis the same way (local
// binaries only, no Docker path): a primary, a replica replicating through
// a link the caller makes (a Toxiproxy proxy), and three Sentinels.
//
// StartDynalite starts dynalite, a DynamoDB implementation in Node, the
// same way (node and the npm package installed from the lock file of the
// caller's directory): on a free loopback port, its data in a throwaway
// directory.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package provision

import (
	"context"
	"errors"
	"io"
	"sync"
)

// Source values reported in Services.RedisSource, Services.PostgresSource
// and Services.MySQLSource.
const (
	SourceURL    = "url"
	SourceDocker = "docker"
	SourceLocal  = "local"
)

// Config selects how Start provisions the stores. Package provision reads
// no flags and no environment: the caller (cmd/) fills every field, e.g.
// DockerHost from $DOCKER_HOST and PGBinDir from $PG_BINDIR.
type Config struct {
	RedisURL    string    // if set, used as is (pinged, never started)
	PostgresURL string    // if set, used as is (pinged, never started)
	NoDocker    bool      // skip the Docker engine step
	TempDir     string    // base for data dirs; "" = os.TempDir()
	Log         io.Writer // progress lines; nil = discard

	// MySQL asks for a MySQL-family server too, after Redis and Postgres:
	// MySQLURL if set, else Docker or a local MariaDB. Without MySQL or
	// MySQLURL, Start provisions none.
	MySQL bool
	// MySQLURL, if set, is used as is (pinged, never started), and implies
	// MySQL. Its form is mysql://user:password@host:port/database?params
	// (see MySQLDSN).
	MySQLURL string

	// DockerHost is the Docker engine endpoint, e.g. "tcp://127.0.0.1:2375"
	// or "unix:///run/user/1000/docker.sock". "" means the unix socket
	// /var/run/docker.sock; when that is absent the Docker step fails at
	// once, without dialing. DOCKER_URL and DOCKER_MACHINE_NAME are not
	// consulted; dockertest itself still reads DOCKER_CERT_PATH to talk
	// TLS to a tcp or https host.
	DockerHost string
	// PGBinDir is a dir holding initdb and postgres, tried before the
	// default search (PATH, pg_config --bindir, the usual install dirs);
	// "" = only the default search.
	PGBinDir string
	// ClusterCache is a dir where a Postgres cluster fresh from initdb is
	// kept, and copied by later starts instead of running initdb again (a
	// second of CPU each); "" = none, initdb every start. It is never
	// under TempDir's run dirs, and nothing in it is removed.
	ClusterCache string

	find *finder // binary discovery; nil = the default search
}

// Services holds the URLs of the provisioned stores and what must be
// stopped when they are no longer needed.
type Services struct {
	RedisURL    string // e.g. redis://127.0.0.1:PORT/0
	PostgresURL string // admin DSN on the maintenance database "postgres"
	// MySQLURL is e.g. mysql://root@127.0.0.1:PORT/idemchaos, a URL on the
	// database made for the harness (MySQLDSN turns it into the driver's
	// DSN); "" when Config asked for no MySQL.
	MySQLURL string

	RedisSource    string // SourceURL, SourceDocker or SourceLocal
	PostgresSource string // SourceURL, SourceDocker or SourceLocal
	MySQLSource    string // SourceURL, SourceDocker, SourceLocal; "" for none

	mu       sync.Mutex
	parts    []*part // started resources, in start order
	closed   bool
	closeErr error
}

// part is one resource Start brought up and Close must tear down.
type part struct {
	name string       // "redis", "postgres" or "mysql"
	pid  int          // process id (and process group id); 0 for containers
	dir  string       // temp dir to remove; "" for containers
	stop func() error // stops the process or container and removes dir
	proc *proc        // the local process; nil for containers
}

// Start provisions Redis, then Postgres, then MySQL when Config asks for
// it. On any failure everything already started is stopped before
// returning; when ctx is done the error is ctx.Err().
func Start(ctx context.Context, cfg Config) (*Services, error) {
	st := newStarter(cfg)
	s := &Services{}
	err := st.run(ctx, s)
	if err == nil {
		return s, nil
	}
	if cerr := s.Close(); cerr != nil {
		st.log.printf("cleanup after failed start: %v", cerr)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, err
}

// Close stops every process and container Start started and removes their
// temp dirs, newest first. It is idempotent: later calls return the result
// of the first one. A nil *Services is a no-op.
func (s *Services) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	var errs []error
	for i := len(s.parts) - 1; i >= 0; i-- {
		errs = append(errs, s.parts[i].stop())
	}
	s.closeErr = errors.Join(errs...)
	return s.closeErr
}

// add records a started resource so that Close stops it.
func (s *Services) add(p *part) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parts = append(s.parts, p)
}

// ProcessGroups names the process group of each store started here as a
// local process ("redis", "postgres", "mysql"): every process of the store (a
// Postgres server's backends among them) is in it. Stores given by URL or
// run in a container have none.
func (s *Services) ProcessGroups() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, p := range s.parts {
		if p.pid > 0 {
			out[p.name] = p.pid
		}
	}
	return out
}
