package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// The bench target: one replica per strategy, talking to Redis and Postgres
// (a strategy on InnoDB: to MariaDB alone) directly on loopback (no
// Toxiproxy: nothing is injected, only measured), with explicit pool sizes.
//
// Its Postgres pool (an InnoDB one the same) has two connections per CPU
// (2 to 16), the usual sizing of a pool to the database's cores: on 2
// CPUs, 16 connections
// made Postgres spend about 100 us more CPU per pg-tx request than 4 did
// (336 and 358 against 229 and 272 us, bench --compare, two passes side
// by side; most likely lock waits and context switches among 16 backends
// on two CPUs). Requests beyond the pool wait for a connection in the
// server.
var benchPgConns = max(2, min(16, 2*runtime.NumCPU()))

const (
	benchRedisConns = 32
	benchClaimTTL   = 5 * time.Second
	benchKeyTTL     = 24 * time.Hour
)

// BenchConfig is one bench: which strategies, under which load, with
// which per-request timeout, connection reuse and contract profile.
type BenchConfig struct {
	Strategies []string
	Load       load.Config
	Timeout    time.Duration
	KeepAlive  bool
	Profile    api.Profile
	// MySQLURL is a MariaDB database of the bench's own (mysql://...),
	// where the strategies on InnoDB charge: its ledger is emptied, its
	// accounts opened and its ground truth read there, as a matrix cell
	// of theirs does. "": none, and benching one of them is an error.
	MySQLURL string
}

// Bencher measures strategies one after another on the same stores: per
// strategy an empty ledger, a warmed replica, the load, then the checker on
// what the load did.
type Bencher struct {
	cfg      BenchConfig
	dsn      string
	redisURL string
	ctl      *pgxpool.Pool // reset and ground truth, apart from the target's pool
	mysql    *sql.DB       // the same on cfg.MySQLURL's InnoDB ledger; nil without
	rdb      *redis.Client // ground truth and clean-up
	runID    string
	runs     int // strategies benched so far (their key prefixes)
	serves   int // targets served to outside tools so far (their key prefixes)
}

// NewBencher connects to the stores: a database of its own (dsn), Redis
// and, when cfg names one, a MariaDB database (cfg.MySQLURL).
func NewBencher(ctx context.Context, cfg BenchConfig, dsn, redisURL string) (*Bencher, error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres dsn: %w", err)
	}
	pc.MaxConns = 2
	ctl, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := ledger.Migrate(ctx, ctl); err != nil {
		ctl.Close()
		return nil, err
	}
	b := &Bencher{cfg: cfg, dsn: dsn, redisURL: redisURL, ctl: ctl, runID: newRunID()}
	if cfg.MySQLURL != "" {
		if b.mysql, err = openInnoDB(ctx, cfg.MySQLURL); err != nil {
			ctl.Close()
			return nil, err
		}
	}
	if b.rdb, err = controlClient(redisURL, 2); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Close releases the connections.
func (b *Bencher) Close() {
	b.ctl.Close()
	if b.mysql != nil {
		_ = b.mysql.Close()
	}
	if b.rdb != nil {
		_ = b.rdb.Close()
	}
}

// RunAll benches every strategy in turn; each result, as it is ready, goes
// to done (nil: nowhere).
func (b *Bencher) RunAll(ctx context.Context, done func(results.BenchResult)) (results.Bench, error) {
	started := time.Now()
	doc := b.header(started)
	for _, name := range b.cfg.Strategies {
		res, err := b.Run(ctx, name)
		if err != nil {
			return doc, fmt.Errorf("bench %s: %w", name, err)
		}
		if done != nil {
			done(res)
		}
		doc.Results = append(doc.Results, res)
	}
	doc.TookMS = time.Since(started).Milliseconds()
	return doc, nil
}

// Run benches one strategy (a BenchConfig's Strategies need not name it).
func (b *Bencher) Run(ctx context.Context, name string) (results.BenchResult, error) {
	b.runs++
	return b.runOne(ctx, name, b.runs)
}

// runOne deploys one strategy on an empty ledger, loads it, then checks what
// it did: the anomalies the checker still finds under load.
func (b *Bencher) runOne(ctx context.Context, name string, seq int) (results.BenchResult, error) {
	info, err := design.Lookup(name)
	if err != nil {
		return results.BenchResult{}, err
	}
	sl, err := b.ledgerOf(info)
	if err != nil {
		return results.BenchResult{}, err
	}
	prefix := fmt.Sprintf("ib:%s:%d:", b.runID, seq)
	defer DropKeys(b.rdb, prefix)
	rows, err := sl.prepare(ctx, load.NewGen(b.cfg.Load).Accounts())
	if err != nil {
		return results.BenchResult{}, err
	}
	clock := load.NewPrecise() // the open model waits for each due time on a kernel timer
	defer clock.Close()
	t, err := b.deploy(ctx, info, prefix, clock.Now, "127.0.0.1:0")
	if err != nil {
		return results.BenchResult{}, err
	}
	cl := client.New(client.Config{Routes: routeTo(t), Policy: client.Policy{PerTry: b.cfg.Timeout},
		Reuse: b.cfg.KeepAlive, Seed: b.cfg.Load.Seed, Since: clock.Now})
	rep, err := load.Run(ctx, b.cfg.Load, clock, sender(cl))
	cl.Close()
	if err := errors.Join(err, ctx.Err(), stopReplica(t)); err != nil {
		return results.BenchResult{}, err
	}
	attempts, hidden := Merge(attemptsOf(rep), t.Entries())
	truth, err := groundTruth(ctx, sl.read, b.rdb, info.Redis, prefix)
	if err != nil {
		return results.BenchResult{}, err
	}
	h := history.History{Seed: b.cfg.Load.Seed, Attempts: attempts, ClaimTimeout: benchClaimTTL, KeyTTL: benchKeyTTL, End: clock.Now()}
	truth.RowsAtStart = rows
	verdict := check.Run(check.Input{History: check.Resolve(h, truth), Ledger: truth, Profile: b.cfg.Profile, TwoStores: info.Redis})
	return Summarize(info, b.cfg.Load, rep, verdict, hidden), nil
}

// sender sends one request as a single-try op of the recording client.
func sender(cl *client.Client) load.Sender {
	return func(ctx context.Context, r load.Request) history.Attempt {
		if as := cl.Run(ctx, workload.Plan{Ops: []workload.Op{r.Op()}}); len(as) > 0 {
			return as[0]
		}
		return history.Attempt{Op: r.Index, Try: 1, ID: client.AttemptID(r.Index, 1), Key: r.Key, Account: r.Account,
			Amount: r.Amount, Outcome: history.NotSent, Err: "run aborted before the send"}
	}
}

func attemptsOf(rep load.Report) []history.Attempt {
	out := make([]history.Attempt, len(rep.Samples))
	for i, s := range rep.Samples {
		out[i] = s.Attempt
	}
	return out
}
