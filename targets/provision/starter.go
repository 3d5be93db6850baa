package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ory/dockertest/v3"
)

// Install commands carried by UnavailableError.
const (
	redisInstallHint    = "sudo apt-get install -y redis-server"
	postgresInstallHint = "sudo apt-get install -y postgresql"
	mysqlInstallHint    = "sudo apt-get install -y mariadb-server"
)

// logger writes progress lines to an optional writer.
type logger struct{ w io.Writer }

func (l logger) printf(format string, args ...any) {
	if l.w != nil {
		fmt.Fprintf(l.w, format+"\n", args...)
	}
}

// starter carries the state of one Start call.
type starter struct {
	cfg  Config
	base string
	log  logger
	find finder

	dockerChecked bool
	pool          *dockertest.Pool
	dockerErr     error
}

func newStarter(cfg Config) *starter {
	st := &starter{cfg: cfg, base: cfg.TempDir, log: logger{cfg.Log}, find: defaultFinder(cfg.PGBinDir)}
	if st.base == "" {
		st.base = os.TempDir()
	}
	if abs, err := filepath.Abs(st.base); err == nil {
		st.base = abs // postgres reports data_directory as an absolute path
	}
	if cfg.find != nil {
		st.find = *cfg.find
	}
	return st
}

// run sweeps stale dirs, then provisions Redis, Postgres and, when asked,
// MySQL into s.
func (st *starter) run(ctx context.Context, s *Services) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	removed, err := Sweep(st.base)
	for _, dir := range removed {
		st.log.printf("removed stale data dir %s", dir)
	}
	if err != nil {
		st.log.printf("sweep %s: %v", st.base, err)
	}
	if err := st.redis(ctx, s); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := st.postgres(ctx, s); err != nil {
		return err
	}
	if !st.cfg.MySQL && st.cfg.MySQLURL == "" {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return st.mysql(ctx, s)
}

// redis fills s.RedisURL from the config URL, Docker or a local binary.
func (st *starter) redis(ctx context.Context, s *Services) error {
	if st.cfg.RedisURL != "" {
		if err := pingRedisURL(ctx, st.cfg.RedisURL); err != nil {
			return err
		}
		st.log.printf("redis: using %s", redact(st.cfg.RedisURL))
		s.RedisURL, s.RedisSource = st.cfg.RedisURL, SourceURL
		return nil
	}
	url, p, why, err := st.viaDocker(ctx, "redis", dockerRedis)
	if err != nil {
		return err
	}
	if p != nil {
		s.add(p)
		s.RedisURL, s.RedisSource = url, SourceDocker
		return nil
	}
	bin, err := st.find.redisPath()
	if err != nil {
		return &UnavailableError{Service: "redis", Hint: redisInstallHint, Err: fmt.Errorf("%s, %w", why, err)}
	}
	url, p, err = startLocalRedis(ctx, st.base, bin, st.log)
	if err != nil {
		return err
	}
	s.add(p)
	s.RedisURL, s.RedisSource = url, SourceLocal
	return nil
}

// postgres fills s.PostgresURL from the config URL, Docker or local binaries.
func (st *starter) postgres(ctx context.Context, s *Services) error {
	if st.cfg.PostgresURL != "" {
		if err := pingPostgresURL(ctx, st.cfg.PostgresURL); err != nil {
			return err
		}
		st.log.printf("postgres: using %s", redact(st.cfg.PostgresURL))
		s.PostgresURL, s.PostgresSource = st.cfg.PostgresURL, SourceURL
		return nil
	}
	url, p, why, err := st.viaDocker(ctx, "postgres", dockerPostgres)
	if err != nil {
		return err
	}
	if p != nil {
		s.add(p)
		s.PostgresURL, s.PostgresSource = url, SourceDocker
		return nil
	}
	bin, err := findPostgresBin(st.find.pgDirs(ctx))
	if err != nil {
		return &UnavailableError{Service: "postgres", Hint: postgresInstallHint, Err: fmt.Errorf("%s, %w", why, err)}
	}
	url, p, err = startLocalPostgres(ctx, st.base, bin, st.cfg.ClusterCache, st.log)
	if err != nil {
		return err
	}
	s.add(p)
	s.PostgresURL, s.PostgresSource = url, SourceLocal
	return nil
}

// mysql fills s.MySQLURL from the config URL, Docker or local MariaDB
// binaries.
func (st *starter) mysql(ctx context.Context, s *Services) error {
	if st.cfg.MySQLURL != "" {
		if err := pingMySQLURL(ctx, st.cfg.MySQLURL); err != nil {
			return err
		}
		st.log.printf("mysql: using %s", redact(st.cfg.MySQLURL))
		s.MySQLURL, s.MySQLSource = st.cfg.MySQLURL, SourceURL
		return nil
	}
	url, p, why, err := st.viaDocker(ctx, "mysql", dockerMySQL)
	if err != nil {
		return err
	}
	if p != nil {
		s.add(p)
		s.MySQLURL, s.MySQLSource = url, SourceDocker
		return nil
	}
	bins, err := st.find.mariaDB()
	if err != nil {
		return &UnavailableError{Service: "mysql", Hint: mysqlInstallHint, Err: fmt.Errorf("%s, %w", why, err)}
	}
	url, p, err = startLocalMySQL(ctx, st.base, bins, st.log)
	if err != nil {
		return err
	}
	s.add(p)
	s.MySQLURL, s.MySQLSource = url, SourceLocal
	return nil
}

// dockerRun starts one store in a container and waits until it answers.
type dockerRun func(ctx context.Context, pool *dockertest.Pool, log logger) (string, *part, error)

// viaDocker runs a store in Docker when an engine answers. It returns a
// non-nil part when the store is up, else a short reason for falling back
// to local binaries; err is set only when provisioning must stop.
func (st *starter) viaDocker(ctx context.Context, name string, run dockerRun) (url string, p *part, why string, err error) {
	pool, err := st.docker(ctx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", nil, "", ctxErr
		}
		if errors.Is(err, errDockerSkipped) {
			return "", nil, "Docker skipped (NoDocker)", nil
		}
		return "", nil, "no Docker engine", nil
	}
	url, p, err = run(ctx, pool, st.log)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", nil, "", ctxErr
		}
		st.log.printf("%s in Docker failed, trying local binaries: %v", name, err)
		return "", nil, "Docker could not run " + name, nil
	}
	return url, p, "", nil
}

var errDockerSkipped = errors.New("docker skipped by configuration")

// docker detects an engine once per Start.
func (st *starter) docker(ctx context.Context) (*dockertest.Pool, error) {
	if st.cfg.NoDocker {
		return nil, errDockerSkipped
	}
	if !st.dockerChecked {
		st.pool, st.dockerErr = dockerPool(ctx, st.cfg.DockerHost, defaultDockerSocket)
		st.dockerChecked = ctx.Err() == nil
		if st.dockerErr != nil {
			st.log.printf("docker: %v", st.dockerErr)
		}
	}
	return st.pool, st.dockerErr
}
