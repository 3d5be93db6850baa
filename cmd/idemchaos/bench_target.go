package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
)

// deploy starts the strategy's replica on addr (loopback), its store clients
// going straight to the stores, its pool warmed: every connection open before
// the load starts. Redis gets a second a call and go-redis's five dials a
// connection: no link is cut here.
func (b *bencher) deploy(ctx context.Context, name, prefix string, since func() time.Duration, addr string) (*scenarios.Replica, error) {
	return scenarios.StartReplica(ctx, scenarios.ReplicaSpec{Strategy: name, Prefix: prefix, Profile: b.o.profile,
		ClaimTTL: benchClaimTTL, KeyTTL: benchKeyTTL, Since: since, Listen: addr,
		PostgresDSN: b.dsn, RedisURL: b.redisURL, PgConns: benchPgConns, RedisConns: benchRedisConns,
		RedisTimeout: time.Second, RedisDials: 5, Warm: true})
}

// routeTo sends every try to t.
func routeTo(t *scenarios.Replica) client.Routes {
	return func(int, string) (string, error) { return "http://" + t.Addr, nil }
}

// stopReplica lets in-flight requests finish, then closes the store clients.
func stopReplica(t *scenarios.Replica) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return t.Close(ctx)
}

// serveFor serves the first strategy's target for the duration (or until
// interrupted), for an outside load tool, then tells what the ledger holds.
func (b *bencher) serveFor(ctx context.Context, stdout io.Writer) error {
	name, prefix := b.o.strategies[0], fmt.Sprintf("ib:%s:serve:", b.runID)
	defer scenarios.DropKeys(b.rdb, prefix)
	if _, err := scenarios.PrepareLedger(ctx, b.ctl, load.NewGen(b.o.load).Accounts()); err != nil {
		return envError(err)
	}
	start := time.Now()
	t, err := b.deploy(ctx, name, prefix, func() time.Duration { return time.Since(start) }, b.o.serve)
	if err != nil {
		return envError(err)
	}
	fmt.Fprintf(stdout, "serving %s on http://%s%s for %s (accounts acct-1..acct-%d, %s); Ctrl-C stops\n",
		name, t.Addr, api.PathCharges, b.o.load.Duration, b.o.load.Accounts, load.Currency)
	timer := time.NewTimer(b.o.load.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	if err := stopReplica(t); err != nil {
		return envError(err)
	}
	l, err := scenarios.GroundTruth(context.WithoutCancel(ctx), b.ctl, b.rdb, name, prefix)
	if err != nil {
		return envError(err)
	}
	fmt.Fprintf(stdout, "%s: %d requests served, %d ledger charges, %d keys charged more than once\n",
		name, len(t.Entries()), len(l.Charges), doubleCharged(l, b.o.profile))
	return nil
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
