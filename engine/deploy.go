package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/server"
)

// deployment is the built-in target for one cell: N in-process replicas of a
// strategy, each with its own store clients and its own pair of client-side
// proxies (a clean path and one that drops responses). Every replica reaches
// Redis and Postgres through one proxy per store, where store faults happen.
// pgLink is the app's SQL link: in front of Postgres, or of MariaDB for a
// strategy on InnoDB, where the plan's pg-cut and pg-latency land alike.
type deployment struct {
	replicas  []*Replica
	links     map[string]*fault.Link // client-side, by route key
	pgLink    *fault.Link
	redisLink *fault.Link
	// redisPrimary is the address redisLink is in front of
	redisPrimary string
	failpoints   *failpoint.Set
	gate         *failpoint.Gate
	trace        *tracer
}

type deploySpec struct {
	Strategy string
	Replicas int
	Prefix   string
	Profile  api.Profile
	ClaimTTL time.Duration
	KeyTTL   time.Duration
	Gate     *scenarios.GateSpec
	Since    func() time.Duration
	Sentinel *SentinelSpec // set: the replicas find Redis through Sentinel
	Warm     []int         // by replica: SQL connections open before it serves (openingBurst)
	InnoDB   bool          // the strategy is on InnoDB: its SQL link is to the runner's MariaDB
}

func (r *Builtin) deploy(ctx context.Context, s deploySpec) (*deployment, error) {
	d := &deployment{links: map[string]*fault.Link{}, failpoints: &failpoint.Set{}, trace: &tracer{since: s.Since}}
	d.trace.arm(d.failpoints)
	if s.Gate != nil {
		d.gate = &failpoint.Gate{Hold: s.Gate.Hold, Until: s.Gate.Until, Timeout: s.Gate.Timeout}
		d.gate.Arm(d.failpoints)
	}
	err := r.storeLinks(ctx, d, s.InnoDB)
	for i := 0; err == nil && i < s.Replicas; i++ {
		err = r.addReplica(ctx, d, s, i)
	}
	if err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// storeLinks puts a proxy in front of the SQL store (Postgres, or MariaDB
// for a strategy on InnoDB) and one in front of Redis.
func (r *Builtin) storeLinks(ctx context.Context, d *deployment, innoDB bool) error {
	name := "pg"
	sqlAddr, err := pgAddress(r.env.PostgresDSN)
	if innoDB {
		name = "mysql"
		sqlAddr, err = mysqlAddress(r.env.MySQLURL)
	}
	if err != nil {
		return err
	}
	if d.pgLink, err = r.link(name, sqlAddr); err != nil {
		return err
	}
	primary, err := primaryAddr(ctx, r.env.RedisURL)
	if err != nil {
		return err
	}
	d.redisLink, err = r.link("redis", primary)
	d.redisPrimary = primary
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
func (r *Builtin) link(name, upstream string) (*fault.Link, error) {
	r.linkSeq++
	return r.env.Toxiproxy.Link(fmt.Sprintf("%s-%d-%s", r.runID, r.linkSeq, name), upstream)
}

// addReplica starts replica i, its store clients going through the store
// links, and puts its two client-side proxies in front of it.
func (r *Builtin) addReplica(ctx context.Context, d *deployment, s deploySpec, i int) error {
	spec := ReplicaSpec{Strategy: s.Strategy, Index: i, Prefix: s.Prefix, Profile: s.Profile,
		ClaimTTL: s.ClaimTTL, KeyTTL: s.KeyTTL, Since: s.Since, Failpoints: d.failpoints,
		PostgresDSN: r.env.PostgresDSN, StandbyDSN: r.standbyDSN(), RedisURL: r.env.RedisURL, PgAddr: d.pgLink.Listen, RedisAddr: d.redisLink.Listen,
		RedisPrimary: d.redisPrimary, Sentinel: s.Sentinel, Warm: warmOf(s.Warm, i)}
	if s.InnoDB {
		spec.PostgresDSN, spec.PgAddr, spec.MySQLURL, spec.MySQLAddr = "", "", r.env.MySQLURL, d.pgLink.Listen
	}
	rep, err := StartReplica(ctx, spec)
	if err != nil {
		return err
	}
	d.replicas = append(d.replicas, rep)
	for _, f := range []string{"", workload.DropResponse} {
		if err := r.addRoute(d, rep.Addr, i, f); err != nil {
			return err
		}
	}
	return nil
}

// warmOf is replica i's entry of warm, 0 past its end.
func warmOf(warm []int, i int) int {
	if i < len(warm) {
		return warm[i]
	}
	return 0
}

func (r *Builtin) addRoute(d *deployment, upstream string, replica int, toxic string) error {
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

// resetStores drops every replica's Postgres connections: after a crash
// of the primary they are all broken.
func (d *deployment) resetStores() {
	for _, r := range d.replicas {
		if r.pool != nil {
			r.pool.Reset()
		}
		if r.mysql != nil { // drops the idle connections; a pool has no reset
			r.mysql.SetMaxIdleConns(0)
			r.mysql.SetMaxIdleConns(mysqlConnsPerReplica)
		}
	}
}

// standbyDSN is the hot standby's DSN on the replicated Postgres, else "".
func (r *Builtin) standbyDSN() string {
	if r.env.Replicated == nil {
		return ""
	}
	return r.env.Replicated.StandbyURL
}

// entries is everything the replicas logged.
func (d *deployment) entries() []server.Entry {
	var out []server.Entry
	for _, r := range d.replicas {
		out = append(out, r.Entries()...)
	}
	return out
}

// close stops client-side proxies, then replicas (letting in-flight work
// finish) with their store clients, then store links.
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
	for _, l := range []*fault.Link{d.pgLink, d.redisLink} {
		if l != nil {
			errs = append(errs, l.Close())
		}
	}
	return errors.Join(errs...)
}

// gateAround tells the gate, if there is one, of every answered try: the
// answer releases the request of its key the gate holds, if another (nil
// without a gate).
func gateAround(g *failpoint.Gate) func(workload.Op, int) func() {
	if g == nil {
		return nil
	}
	return func(op workload.Op, try int) func() {
		return func() { g.Finished(op.Key, client.AttemptID(op.ID, try)) }
	}
}
