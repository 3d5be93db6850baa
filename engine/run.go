// Package engine is where idemchaos meets the world: it deploys the
// built-in strategies on real Redis and Postgres behind Toxiproxy (Builtin),
// puts Toxiproxy in front of a user's own service and reads its ledger
// (Service), and runs cells through the one pipeline every command and test
// uses (Run: prepare the plan from the seed, save it, execute, judge, save
// what was observed), many at once (RunAll), in sessions that provision
// their own stores (Open), as soaks and as benches. The judging itself is
// pure and lives in package scenarios; this package does the I/O.
//
// It does all of idemchaos's I/O, behind the command line and scenariotest;
// its subpackages are the conformance run (conform), bench --compare
// (compare) and the shrinker (shrink). It fills the records of package
// results and renders nothing. Its API may change between releases.
package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Executor runs prepared cells: a Builtin, or a Service.
type Executor interface {
	Execute(ctx context.Context, c scenarios.Cell, plan workload.Plan) (scenarios.Record, error)
}

// Run is the pipeline of one cell: against a user's service, measure how
// long it takes to charge first (once per Service: a scenario may adapt to
// it, and the checker tells a held duplicate from a stalled client by it;
// a measuring failure is an error only where the scenario adapts); prepare
// it (defaults, and the plan and fault schedule from the seed alone;
// against a user's service, fresh keys for this run: its ledger outlives
// runs), save the cell and its plan in
// the run directory out before anything runs (out "" saves nothing),
// execute it, judge it, and save everything it observed with its result. An error
// means the harness could not run the cell (environment), not that the
// target misbehaved; a *scenarios.SkipError says the cell cannot run
// against that target.
func Run(ctx context.Context, e Executor, c scenarios.Cell, out string) (scenarios.Result, scenarios.Record, error) {
	if t, ok := e.(Timer); ok && c.Service() && c.Timing == nil {
		timing, err := t.Timing(ctx)
		if err != nil && (c.NeedsTiming() || ctx.Err() != nil) {
			return scenarios.Result{}, scenarios.Record{}, err
		}
		c.Timing = timing // nil if it could not be measured: the run shows why
	}
	c, plan, err := scenarios.Prepare(c)
	if err != nil {
		return scenarios.Result{}, scenarios.Record{}, err
	}
	if c.Service() {
		plan = plan.Rekey(newNonce())
	}
	dir := rundir.CellDir(out, c)
	if out != "" {
		if err := rundir.WritePlan(dir, c, plan); err != nil {
			return scenarios.Result{}, scenarios.Record{}, err
		}
	}
	rec, err := e.Execute(ctx, c, plan)
	if err != nil {
		return scenarios.Result{}, rec, err
	}
	if out != "" && len(rec.Plan.Ops) != len(plan.Ops) { // a run in rounds kept those it sent
		if err := rundir.WritePlan(dir, rec.Cell, rec.Plan); err != nil {
			return scenarios.Result{}, rec, err
		}
	}
	res := scenarios.Judge(rec)
	if out != "" {
		err = rundir.WriteRecord(dir, rec, res)
	}
	return res, rec, err
}

// newNonce draws a run's nonce: never 0, which means none.
func newNonce() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}
