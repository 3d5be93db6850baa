package strategytest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// Time bounds of the table: every call and every wait is bounded.
const (
	setupTimeout   = 30 * time.Second // database, migration, store clients
	caseTimeout    = 20 * time.Second // one case on one strategy
	requestTimeout = 10 * time.Second // one Handle call
)

// The account every case charges, and the request it sends.
const (
	account = "acct-1"
	opening = 100_000
	theKey  = "key-1" // one key per case: each case has its own database and prefix
)

var pay = api.ChargeRequest{Account: account, Amount: 1250, Currency: "EUR"}

// fixture is one strategy on its own fresh database (and, on Postgres, its
// own Redis key prefix), with its own failpoint set: what one case runs
// against.
type fixture struct {
	t    *testing.T
	name string
	deps strategy.Deps
	dsn  string      // the Postgres database; "" for a strategy on InnoDB
	book book        // the ledger the strategy charges in, read and funded by the case
	inno *innoStores // the MariaDB pools of a strategy on InnoDB; nil on Postgres
}

// book is the ledger a case reads its ground truth from and funds an
// account in: the Postgres one, or the InnoDB one for a strategy on InnoDB.
type book interface {
	read(ctx context.Context) (ledger.Snapshot, error)
	topUp(ctx context.Context, id string, amount int64) error
}

// newFixture builds the stores of one case; tune, if set, adjusts the
// strategy's Deps (a shorter claim TTL, say) before any replica is built.
// A strategy on InnoDB (design.Info.MySQL) gets a MariaDB database only,
// as the engine deploys it: no Postgres, no Redis.
func newFixture(ctx context.Context, t *testing.T, name string, tune func(*strategy.Deps)) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	info, err := design.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{t: t, name: name}
	if info.MySQL {
		fx.onInnoDB(ctx)
	} else {
		fx.onPostgres(ctx)
	}
	fx.deps.Profile, fx.deps.Failpoints = api.IETF, &failpoint.Set{}
	if tune != nil {
		tune(&fx.deps)
	}
	return fx
}

// onPostgres gives the fixture a fresh Postgres database and a Redis
// prefix of its own.
func (f *fixture) onPostgres(ctx context.Context) {
	f.dsn = provisiontest.Database(f.t, services)
	pool := openPool(ctx, f.t, f.dsn)
	rdb := openRedis(f.t)
	prefix := pool.Config().ConnConfig.Database + ":" // the database name has a random suffix
	f.t.Cleanup(func() { dropPrefix(rdb, prefix) })
	f.deps = strategy.Deps{Pool: pool, Redis: rdb, Prefix: prefix}
	f.book = pgBook{pool}
}

// pgBook is the Postgres ledger on a pool.
type pgBook struct{ pool *pgxpool.Pool }

func (b pgBook) read(ctx context.Context) (ledger.Snapshot, error) { return ledger.Read(ctx, b.pool) }

func (b pgBook) topUp(ctx context.Context, id string, amount int64) error {
	_, err := ledger.TopUp(ctx, b.pool, id, amount)
	return err
}

// openPool opens a migrated pool with the case's account; tune, if given,
// adjusts its configuration.
func openPool(ctx context.Context, t *testing.T, dsn string, tune ...func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse dsn: %v", err)
	}
	cfg.MaxConns = 8 // sized explicitly: the in-flight case holds one connection open
	for _, f := range tune {
		f(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("open pool: %v", err)
	}
	t.Cleanup(pool.Close)
	if err := ledger.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if err := ledger.Open(ctx, pool, account, "EUR", opening); err != nil {
		t.Fatal(err)
	}
	return pool
}

func openRedis(t *testing.T) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(services.RedisURL)
	if err != nil {
		t.Fatalf("parse redis url: %v", err)
	}
	opts.MaxRetries = -1 // an idempotency store must not re-send SET NX (DESIGN.md section 6)
	opts.PoolSize = 8
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// dropPrefix deletes the keys a case left under prefix, in case the Redis
// server outlives the test binary (IDEMCHAOS_REDIS_URL).
func dropPrefix(rdb *redis.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	keys, err := rdb.Keys(ctx, prefix+"*").Result() // a handful of keys per case
	if err == nil && len(keys) > 0 {
		rdb.Del(ctx, keys...)
	}
}

// replica builds one instance of the strategy on the fixture's stores, as
// one server replica would: an in-process strategy (memory) gets its own
// state per instance.
func (f *fixture) replica() strategy.Strategy {
	f.t.Helper()
	st, err := strategy.New(f.name, f.deps)
	if err != nil {
		f.t.Fatalf("build %s: %v", f.name, err)
	}
	return st
}

// send runs one attempt of the case's key through st, bounded in time.
func (f *fixture) send(ctx context.Context, st strategy.Strategy, replica int, attempt string, body api.ChargeRequest) strategy.Response {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return st.Handle(ctx, strategy.Request{Key: theKey, AttemptID: attempt, Body: body,
		Fingerprint: body.Fingerprint(), Replica: replica})
}

// sendKey runs one attempt with key through st, bounded in time.
func (f *fixture) sendKey(ctx context.Context, st strategy.Strategy, key string, body api.ChargeRequest) strategy.Response {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return st.Handle(ctx, strategy.Request{Key: key, AttemptID: key + "-" + body.Fingerprint()[:8], Body: body,
		Fingerprint: body.Fingerprint()})
}

// snapshot reads the ledger the strategy charges in.
func (f *fixture) snapshot(ctx context.Context) ledger.Snapshot {
	f.t.Helper()
	snap, err := f.book.read(ctx)
	if err != nil {
		f.t.Fatalf("read ledger: %v", err)
	}
	return snap
}

// charges counts the ledger charges made with the case's key: money that
// really moved.
func (f *fixture) charges(ctx context.Context) int {
	f.t.Helper()
	snap := f.snapshot(ctx)
	n := 0
	for _, c := range snap.Charges {
		if c.Key == theKey {
			n++
		}
	}
	return n
}

// drift is how far the account's balance is from its opening balance plus
// its top-ups minus its ledger charges: money moved without a charge row
// (positive), or a row without the money (negative).
func (f *fixture) drift(ctx context.Context) int64 {
	f.t.Helper()
	snap := f.snapshot(ctx)
	var want int64
	for _, a := range snap.Accounts {
		if a.ID == account {
			want = a.Opening + a.Credited - a.Balance
		}
	}
	for _, c := range snap.Charges {
		if c.Account == account {
			want -= c.Amount
		}
	}
	return want
}

// show prints a response for a violation message.
func show(r strategy.Response) string {
	return fmt.Sprintf("%d %s (replayed=%v)", r.Status, r.Body, r.Replayed)
}
