package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
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
// strategy, each with its own store clients and its own pair of client-side
// proxies (a clean path and one that drops responses). Every replica reaches
// Redis and Postgres through one proxy per store, where store faults happen.
type deployment struct {
	replicas   []*server.Replica
	logs       []*server.Log
	pools      []*pgxpool.Pool
	rdbs       []*redis.Client
	links      map[string]*fault.Link // client-side, by route key
	pgLink     *fault.Link
	redisLink  *fault.Link
	failpoints *failpoint.Set
	gate       *failpoint.Gate
	trace      *tracer
}

type deploySpec struct {
	Strategy string
	Replicas int
	Prefix   string
	Profile  api.Profile
	ClaimTTL time.Duration
	KeyTTL   time.Duration
	Gate     *GateSpec
	Since    func() time.Duration
}

func (r *Runner) deploy(ctx context.Context, s deploySpec) (*deployment, error) {
	d := &deployment{links: map[string]*fault.Link{}, failpoints: &failpoint.Set{}, trace: &tracer{since: s.Since}}
	d.trace.arm(d.failpoints)
	if s.Gate != nil {
		d.gate = &failpoint.Gate{Hold: s.Gate.Hold, Until: s.Gate.Until, Timeout: s.Gate.Timeout}
		d.gate.Arm(d.failpoints)
	}
	err := r.storeLinks(d)
	for i := 0; err == nil && i < s.Replicas; i++ {
		err = r.addReplica(ctx, d, s, i)
	}
	if err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// storeLinks puts a proxy in front of Postgres and one in front of Redis.
func (r *Runner) storeLinks(d *deployment) error {
	pgAddr, err := pgAddress(r.env.PostgresDSN)
	if err != nil {
		return err
	}
	if d.pgLink, err = r.link("pg", pgAddr); err != nil {
		return err
	}
	opts, err := redis.ParseURL(r.env.RedisURL)
	if err != nil {
		return fmt.Errorf("redis url: %w", err)
	}
	d.redisLink, err = r.link("redis", opts.Addr)
	return err
}

func pgAddress(dsn string) (string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return "", fmt.Errorf("postgres dsn: %w", err)
	}
	return net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))), nil
}

// link creates a proxy with a name unique to this runner.
func (r *Runner) link(name, upstream string) (*fault.Link, error) {
	r.linkSeq++
	return r.env.Toxiproxy.Link(fmt.Sprintf("%s-%d-%s", r.runID, r.linkSeq, name), upstream)
}

func (r *Runner) addReplica(ctx context.Context, d *deployment, s deploySpec, i int) error {
	deps, err := r.storeClients(ctx, d)
	if err != nil {
		return err
	}
	deps.Prefix, deps.Profile, deps.Failpoints = s.Prefix, s.Profile, d.failpoints
	deps.ClaimTTL, deps.KeyTTL = s.ClaimTTL, s.KeyTTL
	st, err := strategy.New(s.Strategy, deps)
	if err != nil {
		return err
	}
	log := &server.Log{}
	rep, err := server.Listen(server.New(server.Config{Replica: i, Strategy: st, Pool: deps.Pool, Since: s.Since,
		Log: log, Failpoints: d.failpoints}))
	if err != nil {
		return err
	}
	d.replicas, d.logs = append(d.replicas, rep), append(d.logs, log)
	for _, f := range []string{"", string(fault.DropResponse)} {
		if err := r.addRoute(d, rep.Addr, i, f); err != nil {
			return err
		}
	}
	return nil
}

// storeClients opens this replica's own Postgres pool and Redis client, both
// through the store links.
func (r *Runner) storeClients(ctx context.Context, d *deployment) (strategy.Deps, error) {
	cfg, err := pgxpool.ParseConfig(r.env.PostgresDSN)
	if err != nil {
		return strategy.Deps{}, fmt.Errorf("postgres dsn: %w", err)
	}
	host, port, _ := net.SplitHostPort(d.pgLink.Listen)
	p, _ := strconv.Atoi(port)
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = host, uint16(p)
	cfg.ConnConfig.ConnectTimeout = 2 * time.Second
	cfg.MaxConns = pgConnsPerReplica
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return strategy.Deps{}, fmt.Errorf("postgres pool: %w", err)
	}
	d.pools = append(d.pools, pool)
	opts, _ := redis.ParseURL(r.env.RedisURL)
	opts.Addr = d.redisLink.Listen
	opts.MaxRetries, opts.PoolSize = -1, redisConnsPerReplica // a retried SET NX lies to its own sender
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 2*time.Second, 3*time.Second, 3*time.Second
	opts.DialerRetries = 1 // a cut link fails at once instead of after five dials
	rdb := redis.NewClient(opts)
	d.rdbs = append(d.rdbs, rdb)
	return strategy.Deps{Pool: pool, Redis: rdb}, nil
}

func (r *Runner) addRoute(d *deployment, upstream string, replica int, toxic string) error {
	l, err := r.link(fmt.Sprintf("r%d-%s", replica, linkName(toxic)), upstream)
	if err != nil {
		return err
	}
	d.links[routeKey(replica, toxic)] = l
	if toxic == "" {
		return nil
	}
	return l.Inject(fault.Toxic(toxic), 0)
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

// heal brings both store links back, whatever fault is on them.
func (d *deployment) heal() error {
	return errors.Join(d.pgLink.Heal(), d.redisLink.Heal())
}

// entries is everything the replicas logged.
func (d *deployment) entries() []server.Entry {
	var out []server.Entry
	for _, l := range d.logs {
		out = append(out, l.Entries()...)
	}
	return out
}

// close stops client-side proxies, then replicas (letting in-flight work
// finish), then store clients and store links.
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
	for _, l := range []*fault.Link{d.pgLink, d.redisLink} {
		if l != nil {
			errs = append(errs, l.Close())
		}
	}
	return errors.Join(errs...)
}
