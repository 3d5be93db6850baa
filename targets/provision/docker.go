package provision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	"github.com/redis/go-redis/v9"
)

// Docker limits. A ping that does not answer within dockerPingTimeout
// means "no engine": dockertest's own Ping has no timeout at all.
const (
	defaultDockerSocket = "/var/run/docker.sock"
	dockerPingTimeout   = 2 * time.Second
	dockerReadyLimit    = 90 * time.Second
	dockerPollEvery     = 250 * time.Millisecond
	containerLifetime   = 30 * 60 // seconds before the engine stops a container
)

var errNoDocker = errors.New("no Docker engine")

// DockerAvailable returns nil when the Docker engine at host answers a
// ping within about 2 s. host is an engine endpoint as in Config.DockerHost
// (e.g. "unix:///run/user/1000/docker.sock" or "tcp://127.0.0.1:2375");
// "" means the default unix socket /var/run/docker.sock, and when that is
// absent DockerAvailable returns at once without dialing. It reads no
// environment: DOCKER_HOST, DOCKER_URL and DOCKER_MACHINE_NAME are not
// consulted (dockertest itself still reads DOCKER_CERT_PATH to use TLS for
// a tcp or https host).
func DockerAvailable(ctx context.Context, host string) error {
	_, err := dockerPool(ctx, host, defaultDockerSocket)
	return err
}

// dockerPool connects to the engine at host, or to the unix socket path
// when host is "". It always passes dockertest an explicit endpoint, so
// dockertest does not fall back to DOCKER_HOST, DOCKER_URL or
// DOCKER_MACHINE_NAME.
func dockerPool(ctx context.Context, host, socket string) (*dockertest.Pool, error) {
	endpoint := host
	if endpoint == "" {
		if _, err := os.Stat(socket); err != nil {
			return nil, fmt.Errorf("%w: no Docker host given and %s absent", errNoDocker, socket)
		}
		endpoint = "unix://" + socket
	}
	pool, err := dockertest.NewPool(endpoint)
	if err != nil {
		return nil, noDocker(err)
	}
	pctx, cancel := context.WithTimeout(ctx, dockerPingTimeout)
	defer cancel()
	if err := pool.Client.PingWithContext(pctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, noDocker(err)
	}
	return pool, nil
}

// noDocker wraps why the engine is unusable; errors.Is(err, errNoDocker) holds.
func noDocker(err error) error {
	return &lineError{msg: oneLine(fmt.Sprintf("%v: %v", errNoDocker, err)), err: errors.Join(errNoDocker, err)}
}

// dockerRedis runs redis:7-alpine on a random loopback port.
func dockerRedis(ctx context.Context, pool *dockertest.Pool, log logger) (string, *part, error) {
	log.printf("starting redis:7-alpine in Docker ...")
	res, err := runContainer(ctx, pool, &dockertest.RunOptions{
		Repository: "redis", Tag: "7-alpine",
		Cmd: []string{"redis-server", "--save", "", "--appendonly", "no", "--maxclients", "10000"},
	}, "6379/tcp")
	if err != nil {
		return "", nil, err
	}
	p := containerPart("redis", pool, res)
	url := "redis://" + res.GetHostPort("6379/tcp") + "/0"
	err = poll(ctx, dockerReadyLimit, dockerPollEvery, nil, func(ctx context.Context) error {
		opt, err := redis.ParseURL(url)
		if err != nil {
			return err
		}
		return redisPing(ctx, opt, 0)
	})
	if err != nil {
		return "", nil, errors.Join(fmt.Errorf("redis container: %w", err), p.stop())
	}
	log.printf("redis ready in Docker at %s", url)
	return url, p, nil
}

// dockerPostgres runs postgres:15-alpine with trust auth on a random
// loopback port.
func dockerPostgres(ctx context.Context, pool *dockertest.Pool, log logger) (string, *part, error) {
	log.printf("starting postgres:15-alpine in Docker ...")
	res, err := runContainer(ctx, pool, &dockertest.RunOptions{
		Repository: "postgres", Tag: "15-alpine",
		Env: []string{"POSTGRES_HOST_AUTH_METHOD=trust"},
		Cmd: []string{"postgres", "-c", "max_connections=300", "-c", "fsync=off",
			"-c", "synchronous_commit=off", "-c", "full_page_writes=off"},
	}, "5432/tcp")
	if err != nil {
		return "", nil, err
	}
	p := containerPart("postgres", pool, res)
	dsn := "postgres://postgres@" + res.GetHostPort("5432/tcp") + "/postgres?sslmode=disable"
	err = poll(ctx, dockerReadyLimit, dockerPollEvery, nil, func(ctx context.Context) error {
		return pgProbe(ctx, dsn, "")
	})
	if err != nil {
		return "", nil, errors.Join(fmt.Errorf("postgres container: %w", err), p.stop())
	}
	log.printf("postgres ready in Docker at %s", dsn)
	return dsn, p, nil
}

// dockerMySQL runs mariadb:10.11 (the version Debian 12 ships) on a random
// loopback port, with a root without password and the harness's database.
func dockerMySQL(ctx context.Context, pool *dockertest.Pool, log logger) (string, *part, error) {
	log.printf("starting mariadb:10.11 in Docker ...")
	res, err := runContainer(ctx, pool, &dockertest.RunOptions{
		Repository: "mariadb", Tag: "10.11",
		Env: []string{"MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1", "MARIADB_DATABASE=" + mysqlDatabase},
		Cmd: mysqlSettings, // options only: the image runs mariadbd with them
	}, "3306/tcp")
	if err != nil {
		return "", nil, err
	}
	p := containerPart("mysql", pool, res)
	url := "mysql://root@" + res.GetHostPort("3306/tcp") + "/" + mysqlDatabase
	cfg, err := parseMySQLURL(url)
	if err == nil {
		// The image's first server, which creates the database, listens on
		// no port: an answer comes from the final one.
		err = poll(ctx, dockerReadyLimit, dockerPollEvery, nil, func(ctx context.Context) error {
			return mysqlProbe(ctx, cfg, "")
		})
	}
	if err != nil {
		return "", nil, errors.Join(fmt.Errorf("mariadb container: %w", err), p.stop())
	}
	log.printf("mariadb ready in Docker at %s", url)
	return url, p, nil
}

// runContainer runs opts with port published on 127.0.0.1 only, removed
// when it stops and stopped by the engine after containerLifetime.
// dockertest takes no context: if ctx ends first, the container is
// purged as soon as the engine returns it.
func runContainer(ctx context.Context, pool *dockertest.Pool, opts *dockertest.RunOptions, port string) (*dockertest.Resource, error) {
	opts.ExposedPorts = []string{port}
	opts.PortBindings = map[dc.Port][]dc.PortBinding{dc.Port(port): {{HostIP: "127.0.0.1", HostPort: ""}}}
	opts.Labels = map[string]string{"idemchaos": "provision"}
	type result struct {
		res *dockertest.Resource
		err error
	}
	ch := make(chan result, 1)
	go func() {
		res, err := pool.RunWithOptions(opts, func(hc *dc.HostConfig) {
			hc.AutoRemove = true
			hc.PublishAllPorts = false
			hc.RestartPolicy = dc.RestartPolicy{Name: "no"}
		})
		ch <- result{res, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, wrapLine(r.err, "run %s:%s", opts.Repository, opts.Tag)
		}
		if err := r.res.Expire(containerLifetime); err != nil {
			return nil, errors.Join(err, pool.Purge(r.res))
		}
		return r.res, nil
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.err == nil {
				_ = pool.Purge(r.res) // best effort: nobody waits for it
			}
		}()
		return nil, ctx.Err()
	}
}

// containerPart tells Close how to remove the container.
func containerPart(name string, pool *dockertest.Pool, res *dockertest.Resource) *part {
	return &part{name: name, stop: func() error {
		var gone *dc.NoSuchContainer
		if err := pool.Purge(res); err != nil && !errors.As(err, &gone) {
			return fmt.Errorf("remove %s container: %w", name, err)
		}
		return nil
	}}
}
