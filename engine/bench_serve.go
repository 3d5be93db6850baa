package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// deploy starts the strategy's replica on addr (loopback), its store clients
// going straight to the stores, its pool warmed: every connection open before
// the load starts. Redis gets a second a call and go-redis's five dials a
// connection: no link is cut here. A strategy on InnoDB gets an InnoDB pool
// of the same size on the bench's MariaDB database, and no other store.
func (b *Bencher) deploy(ctx context.Context, info design.Info, prefix string, since func() time.Duration, addr string) (*Replica, error) {
	spec := ReplicaSpec{Strategy: info.Name, Prefix: prefix, Profile: b.cfg.Profile,
		ClaimTTL: benchClaimTTL, KeyTTL: benchKeyTTL, Since: since, Listen: addr,
		PostgresDSN: b.dsn, RedisURL: b.redisURL, PgConns: benchPgConns, RedisConns: benchRedisConns,
		RedisTimeout: time.Second, RedisDials: 5, Warm: benchPgConns}
	if info.MySQL {
		spec.PostgresDSN, spec.RedisURL, spec.MySQLURL = "", "", b.cfg.MySQLURL
	}
	return StartReplica(ctx, spec)
}

// ledgerOf is the ledger the strategy charges in, on the bench's own
// connections: the engine's, as a matrix cell resets and reads it (the
// Postgres one, or the InnoDB one for a strategy on MySQL); an error for a
// strategy on InnoDB when the bench has no MariaDB database.
func (b *Bencher) ledgerOf(info design.Info) (sqlLedger, error) {
	if info.MySQL && b.mysql == nil {
		return sqlLedger{}, fmt.Errorf("bench %s: %w", info.Name, errNoBenchMySQL)
	}
	return (&Builtin{pool: b.ctl, mysql: b.mysql}).ledgerOf(info.MySQL)
}

// errNoBenchMySQL: a strategy on InnoDB came to a Bencher without a MariaDB
// database.
var errNoBenchMySQL = errors.New("the bench has no MySQL database (BenchConfig.MySQLURL): the InnoDB strategies need one")

// routeTo sends every try to t.
func routeTo(t *Replica) client.Routes {
	return func(int, string) (string, error) { return "http://" + t.Addr, nil }
}

// stopReplica lets in-flight requests finish, then closes the store clients.
func stopReplica(t *Replica) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return t.Close(ctx)
}

// Serve serves the first strategy's target on addr (loopback) for the
// load's duration, or until ctx ends, for an outside load tool (wrk), then
// tells on w what the ledger holds.
func (b *Bencher) Serve(ctx context.Context, addr string, w io.Writer) error {
	name := b.cfg.Strategies[0]
	res, err := b.ServeWhile(ctx, name, addr, func(ctx context.Context, url string) error {
		fmt.Fprintf(w, "serving %s on %s%s for %s (accounts acct-1..acct-%d, %s); Ctrl-C stops\n",
			name, url, api.PathCharges, b.cfg.Load.Duration, b.cfg.Load.Accounts, load.Currency)
		timer := time.NewTimer(b.cfg.Load.Duration)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d requests served, %d ledger charges, %d keys charged more than once\n",
		name, res.Served, res.Charges, res.DoubleCharged)
	return nil
}

// Served is what a target served to an outside load tool.
type Served struct {
	Served, Charges, DoubleCharged int
}

// ServeWhile deploys the strategy's target on addr (loopback) on an empty
// ledger, as a bench run does, runs use with its base URL, then stops it
// and reads what the ledger holds.
func (b *Bencher) ServeWhile(ctx context.Context, name, addr string, use func(ctx context.Context, url string) error) (Served, error) {
	b.serves++
	prefix := fmt.Sprintf("ib:%s:serve%d:", b.runID, b.serves)
	info, err := design.Lookup(name)
	if err != nil {
		return Served{}, err
	}
	sl, err := b.ledgerOf(info)
	if err != nil {
		return Served{}, err
	}
	defer DropKeys(b.rdb, prefix)
	if _, err := sl.prepare(ctx, load.NewGen(b.cfg.Load).Accounts()); err != nil {
		return Served{}, err
	}
	start := time.Now()
	t, err := b.deploy(ctx, info, prefix, func() time.Duration { return time.Since(start) }, addr)
	if err != nil {
		return Served{}, err
	}
	useErr := use(ctx, "http://"+t.Addr)
	if err := errors.Join(useErr, stopReplica(t)); err != nil {
		return Served{}, err
	}
	l, err := groundTruth(context.WithoutCancel(ctx), sl.read, b.rdb, info.Redis, prefix)
	if err != nil {
		return Served{}, err
	}
	return Served{Served: len(t.Entries()), Charges: len(l.Charges), DoubleCharged: doubleCharged(l, b.cfg.Profile)}, nil
}

// doubleCharged counts the keys the checker finds charged more than once
// in the ledger alone (an outside load tool leaves no history).
func doubleCharged(l history.Ledger, p api.Profile) int {
	n := 0
	for _, f := range check.Run(check.Input{Ledger: l, Profile: p}).Findings {
		if f.Anomaly == check.DoubleCharge {
			n++
		}
	}
	return n
}
