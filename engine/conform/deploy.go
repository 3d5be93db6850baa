package conform

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
)

// Accounts every target's ledger opens: acct-1..acct-4, as a user's
// service is charged by default, each with paymentd's opening balance.
const (
	accounts = 4
	opening  = 1_000_000
)

// settle bounds how long the ledger is given to stop changing after a
// run's last request: a target on a loaded machine may commit work its
// client gave up on seconds later (a Node target in CI, with the other test
// packages on its 2 cores, still committed 3.1 s after a retry-storm). The
// ledger is read until it is quiet, so a target that settles at once costs
// no more for a larger bound.
const settle = 10 * time.Second

// deployment is one row's target, started: its ledger database, its store
// links through the session's Toxiproxy (its DynamoDB table on the run's
// dynalite), its processes, and the service description a run is given.
type deployment struct {
	dsn               string
	pg, redis, dynamo *fault.Link
	procs             []*process
	ext               scenarios.External
	profile           api.Profile
}

// deploy starts row r: a database of its own (migrated, accounts opened),
// proxies for its Postgres and (if it uses Redis) its Redis traffic, a
// table and a proxy on the run's dynalite if it uses DynamoDB, then its
// replicas, which reach the stores only through them.
func deploy(ctx context.Context, e Env, r Row) (d *deployment, err error) {
	d = &deployment{profile: r.Profile}
	defer func() {
		if err != nil {
			err = errors.Join(err, d.close(context.WithoutCancel(ctx), e))
			d = nil
		}
	}()
	if d.dsn, err = e.Session.NewDatabase(ctx); err != nil {
		return d, err
	}
	if err = openLedger(ctx, d.dsn); err != nil {
		return d, err
	}
	viaPG, viaRedis, err := d.links(e, r)
	if err != nil {
		return d, err
	}
	bin, args, err := e.Builds.Program(ctx, r.Target)
	if err != nil {
		return d, err
	}
	args = append(args, "--listen", "127.0.0.1:0", "--postgres-url", viaPG)
	switch {
	case r.Target.Kind == conformance.Paymentd:
		args = append(args, "--redis-url", viaRedis, "--redis-prefix", "conf-"+r.Name()+":", "--failpoints", "--profile", r.Profile.Name)
	case r.Target.Redis:
		args = append(args, "--redis-url", viaRedis)
	}
	if r.Target.DynamoDB != nil {
		dyn, err := d.dynamoDBLink(ctx, e, r)
		if err != nil {
			return d, err
		}
		args = append(args, dyn...)
	}
	var urls []string
	for i := range r.Target.Replicas {
		p, err := start(ctx, fmt.Sprintf("%s replica %d", r.Name(), i), bin, args)
		if err != nil {
			return d, err
		}
		d.procs = append(d.procs, p)
		urls = append(urls, p.url)
	}
	d.ext = r.external(urls, d)
	return d, nil
}

// links creates the row's store proxies and returns the URLs the target
// reaches its stores at: through them (a target without Redis state gets
// the Redis URL itself, paymentd needing one).
func (d *deployment) links(e Env, r Row) (viaPG, viaRedis string, err error) {
	toxi := e.Session.Toxi
	pgURL, err := url.Parse(d.dsn)
	if err != nil {
		return "", "", err
	}
	if d.pg, err = toxi.Link("conf-"+r.Name()+"-pg-"+e.runID, pgURL.Host); err != nil {
		return "", "", err
	}
	pgURL.Host = d.pg.Listen
	viaRedis = e.Session.Services.RedisURL
	if r.Target.Redis {
		redisURL, err := url.Parse(viaRedis)
		if err != nil {
			return "", "", err
		}
		if d.redis, err = toxi.Link("conf-"+r.Name()+"-redis-"+e.runID, redisURL.Host); err != nil {
			return "", "", err
		}
		redisURL.Host = d.redis.Listen
		viaRedis = redisURL.String()
	}
	return pgURL.String(), viaRedis, nil
}

// openLedger migrates the ledger of dsn and opens its accounts.
func openLedger(ctx context.Context, dsn string) error {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := ledger.Migrate(ctx, pool); err != nil {
		return err
	}
	for i := 1; i <= accounts; i++ {
		if err := ledger.Open(ctx, pool, workload.AccountID(i), workload.Currency, opening); err != nil {
			return err
		}
	}
	return nil
}

// external is the row's target as a user's service: its URLs, the ledger
// query, the failpoint protocol, the store proxies, the timeouts it
// declares, the header it reads the key from.
func (r Row) external(urls []string, d *deployment) scenarios.External {
	e := scenarios.External{Name: r.Name(), URLs: urls, LedgerQuery: conformance.LedgerQuery,
		ClaimTimeout: r.Target.ClaimTimeout, KeyTTL: r.Target.KeyTTL, Settle: settle, Failpoints: true,
		PostgresProxy: d.pg.Name, Shape: client.Shape{KeyHeader: r.Target.KeyHeader}}
	if d.redis != nil {
		e.RedisProxy = d.redis.Name
	}
	e.DynamoDBProxy = d.dynamoDBProxy()
	// every target serves paymentd's top-up endpoint outside its idempotency
	// layer: business-refusal funds the declined account with it
	e.TopUp = &scenarios.TopUp{Path: api.PathAccounts + "{{.Account}}" + api.TopUpSuffix, Body: scenarios.DefaultTopUpBody}
	return e
}

// close stops the processes, deletes the proxies and drops the database.
func (d *deployment) close(ctx context.Context, e Env) error {
	var errs []error
	for _, p := range d.procs {
		errs = append(errs, p.stop())
	}
	for _, l := range []*fault.Link{d.pg, d.redis, d.dynamo} {
		if l != nil {
			errs = append(errs, l.Close())
		}
	}
	if d.dsn != "" {
		errs = append(errs, e.Session.Services.DropDatabase(ctx, d.dsn))
	}
	return errors.Join(errs...)
}

// Row is one row of the table: a target under a profile.
type Row struct {
	Target  conformance.Target
	Profile api.Profile
}

// Name is the row's name in results and run directories.
func (r Row) Name() string {
	return conformance.RowSpec{Target: r.Target, Profile: r.Profile.Name}.Name()
}
