package engine

import (
	"context"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// OpenAtDeploy deploys the cell's target as a run does and returns, for
// each replica, how many Postgres connections it has open before the
// first request.
func (r *Builtin) OpenAtDeploy(ctx context.Context, c scenarios.Cell, plan workload.Plan) ([]int, error) {
	sc, err := c.Definition()
	if err != nil {
		return nil, err
	}
	d, err := r.deploy(ctx, cellSpec(c, sc, plan, "oad:", func() time.Duration { return 0 }, nil))
	if err != nil {
		return nil, err
	}
	defer d.close()
	var open []int
	for _, rep := range d.replicas {
		open = append(open, int(rep.pool.Stat().TotalConns()))
	}
	return open, nil
}

// ReadCharges is what a run reads back of l: the charges under keys and
// those of the keyless attempts, left to exactly those and numbered.
func ReadCharges(ctx context.Context, l LedgerReader, keys, keyless []string) ([]history.Charge, error) {
	return readCharges(ctx, l, lookup{keys: keys, keyless: keyless})
}

// OpenAfterCutHeal deploys strategy (a Postgres one) as an exploration
// does, opens a transaction on its SQL link busy for busy (the server
// notices the link's end only after), cuts the link and heals it as a
// pg-cut case does, and returns how many transactions of the ledger's
// database were open once the heal returned.
func (r *Builtin) OpenAfterCutHeal(ctx context.Context, strategy string, busy time.Duration) (int, error) {
	info, err := design.Lookup(strategy)
	if err != nil {
		return 0, err
	}
	sl, err := r.ledgerOf(info.MySQL)
	if err != nil {
		return 0, err
	}
	d, err := r.deploy(ctx, deploySpec{Strategy: info.Name, Replicas: 1, Prefix: "oach:", ClaimTTL: time.Second, InnoDB: info.MySQL,
		Since: func() time.Duration { return 0 }})
	if err != nil {
		return 0, err
	}
	defer d.close()
	tx, err := d.replicas[0].pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = tx.Exec(context.Background(), "SELECT pg_sleep($1)", busy.Seconds())
	}()
	defer func() {
		<-done                                // the cut ended the sleep's connection
		_ = tx.Rollback(context.Background()) // and returns it to the pool, which d.close waits for
	}()
	time.Sleep(busy / 10) // the sleep is running on the server
	heal, err := builtinExplore{r: r, d: d, sl: sl, info: info}.cut(api.PGCut)
	if err != nil {
		return 0, err
	}
	heal()
	return sl.openTransactions(ctx)
}
