package engine

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/server"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// ReplicaSpec is one replica of a built-in strategy on its own store clients.
type ReplicaSpec struct {
	Strategy   string
	Index      int // the replica's number, logged with every request
	Prefix     string
	Profile    api.Profile
	ClaimTTL   time.Duration
	KeyTTL     time.Duration
	Since      func() time.Duration
	Failpoints *failpoint.Set // nil: none
	Listen     string         // host:port to serve on; "": a free loopback port

	PostgresDSN  string // "" for a strategy on InnoDB (MySQLURL)
	StandbyDSN   string // a hot standby of PostgresDSN's server, for strategies that read there; "": none
	RedisURL     string
	PgAddr       string        // host:port dialed instead of the DSN's (a store link); "": the DSN's
	RedisAddr    string        // host:port dialed instead of the URL's; "": the URL's
	MySQLURL     string        // the MariaDB database (mysql://...) a strategy on InnoDB charges in; "": none
	MySQLAddr    string        // host:port dialed instead of MySQLURL's (its SQL link); "": the URL's
	RedisPrimary string        // a Sentinel URL's: the primary's host:port that RedisAddr stands in for
	Sentinel     *SentinelSpec // set: Redis is found through Sentinel (RedisURL and RedisAddr unused)
	PgConns      int           // Postgres (or InnoDB) pool size; 0: 16
	RedisConns   int           // Redis pool size; 0: 32
	RedisTimeout time.Duration // each Redis dial, read and write; 0: 2s to dial, 3s to read or write
	RedisDials   int           // dials per new Redis connection; 0: one, so a cut link fails at once
	Warm         int           // Postgres connections to open (at most PgConns), and Redis to ping, before serving; 0: none
	// Wrap, if set, is put in front of the replica's handler (client
	// mode's front); the handler served is Wrap(handler).
	Wrap func(http.Handler) http.Handler
	// ConnState, if set, is told of each client connection's changes
	// (http.Server.ConnState): client mode's front learns when a client
	// closed the connection an answer went on.
	ConnState func(net.Conn, http.ConnState)
}

// Replica is a running replica: its server, its log and its store clients.
type Replica struct {
	Addr    string // host:port served on
	srv     *http.Server
	done    chan struct{}
	log     *server.Log
	pool    *pgxpool.Pool // nil for a strategy on InnoDB
	mysql   *sql.DB       // the InnoDB pool of a strategy on InnoDB, else nil
	standby *pgxpool.Pool // nil without a standby
	rdb     *redis.Client
}

// StartReplica opens the replica's store clients, builds the strategy on them
// and serves it.
func StartReplica(ctx context.Context, s ReplicaSpec) (*Replica, error) {
	r := &Replica{log: &server.Log{}}
	h, err := r.handler(ctx, s)
	if err == nil && s.Wrap != nil {
		h = s.Wrap(h)
	}
	if err == nil {
		err = r.listen(s.Listen, h, s.ConnState)
	}
	if err != nil {
		_ = r.closeStores()
		return nil, err
	}
	return r, nil
}

// handler opens the store clients and puts the strategy's API on them.
func (r *Replica) handler(ctx context.Context, s ReplicaSpec) (http.Handler, error) {
	var err error
	if s.MySQLURL != "" {
		return r.innoDBHandler(ctx, s)
	}
	if r.pool, err = pgPool(ctx, s); err != nil {
		return nil, err
	}
	if r.rdb, err = redisClient(s); err != nil {
		return nil, err
	}
	if s.StandbyDSN != "" {
		if r.standby, err = standbyPool(ctx, s); err != nil {
			return nil, err
		}
	}
	if s.Warm > 0 {
		if err := warm(ctx, r.pool, r.rdb, s.Warm); err != nil {
			return nil, err
		}
	}
	st, err := strategy.New(s.Strategy, strategy.Deps{Pool: r.pool, Standby: r.standby, Redis: r.rdb, Prefix: s.Prefix, Profile: s.Profile,
		ClaimTTL: s.ClaimTTL, KeyTTL: s.KeyTTL, Failpoints: s.Failpoints})
	if err != nil {
		return nil, err
	}
	return server.New(server.Config{Replica: s.Index, Strategy: st, Pool: r.pool, Since: s.Since, Log: r.log,
		Failpoints: s.Failpoints}), nil
}

// innoDBHandler opens the InnoDB pool of a strategy on InnoDB (no
// Postgres, no Redis) and puts the strategy's API on it.
func (r *Replica) innoDBHandler(ctx context.Context, s ReplicaSpec) (http.Handler, error) {
	var err error
	if r.mysql, err = innoDBPool(ctx, s); err != nil {
		return nil, err
	}
	st, err := strategy.New(s.Strategy, strategy.Deps{MySQL: r.mysql, Prefix: s.Prefix, Profile: s.Profile,
		ClaimTTL: s.ClaimTTL, KeyTTL: s.KeyTTL, Failpoints: s.Failpoints})
	if err != nil {
		return nil, err
	}
	return server.New(server.Config{Replica: s.Index, Strategy: st, Accounts: innoledger.Accounts{DB: r.mysql}, Since: s.Since, Log: r.log,
		Failpoints: s.Failpoints}), nil
}

func (r *Replica) listen(addr string, h http.Handler, state func(net.Conn, http.ConnState)) error {
	ln, err := net.Listen("tcp", cmp.Or(addr, "127.0.0.1:0"))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	r.Addr, r.done = ln.Addr().String(), make(chan struct{})
	r.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ConnState: state}
	go func() {
		_ = r.srv.Serve(ln)
		close(r.done)
	}()
	return nil
}

// Entries is every request the replica logged.
func (r *Replica) Entries() []server.Entry { return r.log.Entries() }

// Close lets in-flight requests finish (up to the context's deadline), closes
// every connection, then the store clients.
func (r *Replica) Close(ctx context.Context) error {
	err := r.srv.Shutdown(ctx)
	if err != nil {
		err = r.srv.Close()
	}
	<-r.done
	return errors.Join(err, r.closeStores())
}

func (r *Replica) closeStores() error {
	for _, p := range []*pgxpool.Pool{r.pool, r.standby} {
		if p != nil {
			p.Close()
		}
	}
	if r.mysql != nil {
		_ = r.mysql.Close()
	}
	if r.rdb == nil {
		return nil
	}
	return r.rdb.Close()
}
