package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// bencher runs the strategies one after another on the same stores.
type bencher struct {
	o        benchOptions
	dsn      string
	redisURL string
	ctl      *pgxpool.Pool // reset and ground truth, apart from the target's pool
	rdb      *redis.Client // ground truth and clean-up
	runID    string
}

func newBencher(ctx context.Context, o benchOptions, dsn, redisURL string) (*bencher, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres dsn: %w", err)
	}
	cfg.MaxConns = 2
	ctl, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opts.MaxRetries, opts.PoolSize = -1, 2
	var id [4]byte
	_, _ = rand.Read(id[:])
	return &bencher{o: o, dsn: dsn, redisURL: redisURL, ctl: ctl, rdb: redis.NewClient(opts), runID: hex.EncodeToString(id[:])}, nil
}

func (b *bencher) close() {
	b.ctl.Close()
	_ = b.rdb.Close()
}

// runAll benches every strategy in turn; one progress line each on stderr.
func (b *bencher) runAll(ctx context.Context, stderr io.Writer) (benchDoc, error) {
	started := time.Now()
	doc := b.header(started)
	for i, name := range b.o.strategies {
		res, err := b.runOne(ctx, name, i)
		if err != nil {
			return doc, fmt.Errorf("bench %s: %w", name, err)
		}
		fmt.Fprintln(stderr, progressLine(res))
		doc.Results = append(doc.Results, res)
	}
	doc.TookMS = time.Since(started).Milliseconds()
	return doc, nil
}

// runOne deploys one strategy on an empty ledger, loads it, then checks what
// it did: the anomalies the checker still finds under load.
func (b *bencher) runOne(ctx context.Context, name string, seq int) (benchResult, error) {
	prefix := fmt.Sprintf("ib:%s:%d:", b.runID, seq)
	defer scenarios.DropKeys(b.rdb, prefix)
	rows, err := scenarios.PrepareLedger(ctx, b.ctl, load.NewGen(b.o.load).Accounts())
	if err != nil {
		return benchResult{}, err
	}
	clock := load.NewReal()
	t, err := b.deploy(ctx, name, prefix, clock.Now, "127.0.0.1:0")
	if err != nil {
		return benchResult{}, err
	}
	cl := client.New(client.Config{Routes: routeTo(t), Policy: client.Policy{PerTry: b.o.timeout},
		Reuse: b.o.keepAlive, Seed: b.o.load.Seed, Since: clock.Now})
	rep, err := load.Run(ctx, b.o.load, clock, sender(cl))
	cl.Close()
	if err := errors.Join(err, ctx.Err(), stopReplica(t)); err != nil {
		return benchResult{}, err
	}
	attempts, hidden := scenarios.Merge(attemptsOf(rep), t.Entries())
	truth, err := scenarios.GroundTruth(ctx, b.ctl, b.rdb, name, prefix)
	if err != nil {
		return benchResult{}, err
	}
	h := history.History{Seed: b.o.load.Seed, Attempts: attempts, ClaimTimeout: benchClaimTTL, KeyTTL: benchKeyTTL, End: clock.Now()}
	truth.RowsAtStart = rows
	info, _ := strategy.Lookup(name)
	verdict := check.Run(check.Input{History: check.Resolve(h, truth), Ledger: truth, Profile: b.o.profile, TwoStores: info.Redis})
	return summarize(name, b.o.load, rep, verdict, hidden), nil
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
