package engine

import (
	"context"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
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
