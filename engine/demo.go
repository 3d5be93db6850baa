package engine

import (
	"context"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/narrate"
)

// MaxDemoRuns bounds the runs of a demo whose gate gave up before the other
// request committed (a machine slower than the gate's patience).
const MaxDemoRuns = 3

// Demo is a told run: the story of its key, and what the run was.
type Demo struct {
	Story  narrate.Narrative
	Result scenarios.Result
	Record scenarios.Record
	Runs   int // how many runs it took to force the interleaving (at most MaxDemoRuns)
}

// Tell runs the cell through Run (saved in out, if given) and tells it; a
// run whose gate gave up before the other request committed did not force
// its interleaving and is run again, at most MaxDemoRuns times in all.
func Tell(ctx context.Context, e Executor, cell scenarios.Cell, out string) (Demo, error) {
	var d Demo
	for d.Runs < MaxDemoRuns && (d.Runs == 0 || d.Story.Unforced) {
		res, rec, err := Run(ctx, e, cell, out)
		if err != nil {
			return d, err
		}
		d.Result, d.Record, d.Story = res, rec, narrate.Story(rec, res)
		d.Runs++
	}
	return d, nil
}
