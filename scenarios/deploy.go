package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/server"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// Pool sizes per replica, set explicitly: pgxpool would default to 4 on two
// cores and go-redis to 20.
const (
	pgConnsPerReplica    = 16
	redisConnsPerReplica = 32
)

// deployment is the built-in target for one cell: N in-process replicas of a
// strategy, each with its own store clients and its own pair of proxies (a
// clean path and a path that drops responses).
type deployment struct {
	replicas []*server.Replica
	logs     []*server.Log
	pools    []*pgxpool.Pool
	rdbs     []*redis.Client
	links    map[string]*fault.Link // by "replica/fault"
}

type deploySpec struct {
	Strategy string
	Replicas int
	Prefix   string
	Profile  api.Profile
	Since    func() time.Duration
}

func (r *Runner) deploy(ctx context.Context, s deploySpec) (*deployment, error) {
	d := &deployment{links: map[string]*fault.Link{}}
	for i := 0; i < s.Replicas; i++ {
		if err := r.addReplica(ctx, d, s, i); err != nil {
			d.close()
			return nil, err
		}
	}
	return d, nil
}

func (r *Runner) addReplica(ctx context.Context, d *deployment, s deploySpec, i int) error {
	deps, err := r.storeClients(ctx, d)
	if err != nil {
		return err
	}
	deps.Prefix, deps.Profile = s.Prefix, s.Profile
	st, err := strategy.New(s.Strategy, deps)
	if err != nil {
		return err
	}
	log := &server.Log{}
	rep, err := server.Listen(server.New(server.Config{Replica: i, Strategy: st, Pool: deps.Pool, Since: s.Since, Log: log}))
	if err != nil {
		return err
	}
	d.replicas, d.logs = append(d.replicas, rep), append(d.logs, log)
	for _, f := range []string{"", string(fault.DropResponse)} {
		if err := r.addLink(d, rep.Addr, i, f); err != nil {
			return err
		}
	}
	return nil
}

// storeClients opens this replica's own Postgres pool and Redis client.
func (r *Runner) storeClients(ctx context.Context, d *deployment) (strategy.Deps, error) {
	cfg, err := pgxpool.ParseConfig(r.env.PostgresDSN)
	if err != nil {
		return strategy.Deps{}, fmt.Errorf("postgres dsn: %w", err)
	}
	cfg.MaxConns = pgConnsPerReplica
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return strategy.Deps{}, fmt.Errorf("postgres pool: %w", err)
	}
	d.pools = append(d.pools, pool)
	opts, err := redis.ParseURL(r.env.RedisURL)
	if err != nil {
		return strategy.Deps{}, fmt.Errorf("redis url: %w", err)
	}
	opts.MaxRetries, opts.PoolSize = -1, redisConnsPerReplica // a retried SET NX lies to its own sender
	rdb := redis.NewClient(opts)
	d.rdbs = append(d.rdbs, rdb)
	return strategy.Deps{Pool: pool, Redis: rdb}, nil
}

func (r *Runner) addLink(d *deployment, upstream string, replica int, toxic string) error {
	r.linkSeq++
	name := fmt.Sprintf("%s-%d-r%d-%s", r.runID, r.linkSeq, replica, linkName(toxic))
	l, err := r.env.Toxiproxy.Link(name, upstream)
	if err != nil {
		return err
	}
	d.links[routeKey(replica, toxic)] = l
	if toxic == "" {
		return nil
	}
	return l.Inject(fault.Toxic(toxic))
}

func linkName(toxic string) string {
	if toxic == "" {
		return "clean"
	}
	return toxic
}

func routeKey(replica int, toxic string) string { return fmt.Sprintf("%d/%s", replica, toxic) }

// route is the client's view of the deployment.
func (d *deployment) route(replica int, toxic string) (string, error) {
	l, ok := d.links[routeKey(replica, toxic)]
	if !ok {
		return "", fmt.Errorf("no route to replica %d with fault %q", replica, toxic)
	}
	return "http://" + l.Listen, nil
}

// entries is everything the replicas logged.
func (d *deployment) entries() []server.Entry {
	var out []server.Entry
	for _, l := range d.logs {
		out = append(out, l.Entries()...)
	}
	return out
}

// close stops proxies, then replicas (letting in-flight work finish), then
// the store clients.
func (d *deployment) close() error {
	var errs []error
	for _, l := range d.links {
		errs = append(errs, l.Close())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, r := range d.replicas {
		errs = append(errs, r.Close(ctx))
	}
	for _, p := range d.pools {
		p.Close()
	}
	for _, c := range d.rdbs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
