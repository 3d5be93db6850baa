package main

import (
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
)

// soakRun shows a soak as it goes and sums it up at the end.
type soakRun struct {
	*engine.Soak
	cfg   soakConfig
	log   io.Writer
	lat   *results.Latencies
	round *progress // the round in progress
}

func newSoakRun(cfg soakConfig, log io.Writer) *soakRun {
	return &soakRun{Soak: engine.NewSoak(engine.SoakConfig{Strategies: cfg.strategies, Scenarios: cfg.scenarios,
		Profile: cfg.profile, Replicas: cfg.c.replicas, Root: cfg.root, Duration: cfg.duration, MaxRounds: cfg.maxRounds,
		Out: cfg.c.out, Shard: cfg.c.shard}), cfg: cfg, log: log, lat: results.NewLatencies()}
}

// Round shows the round's cells: a rewritten line on a terminal, nothing
// per cell otherwise (a line per round), and every cell not as declared at
// once.
func (k *soakRun) Round(_ int, _ uint64, cells int) engine.Watcher {
	k.round = newProgress(k.log, cells, k.cfg.c.quiet)
	k.round.quiet = k.round.quiet || !k.round.tty
	k.round.lat = k.lat
	k.round.onFinish = func(r scenarios.Result) {
		if r.Class().NotAsDeclared() {
			k.alert(k.round.tty, r)
		}
	}
	return k.round
}

// RoundDone reports a finished round and the anomalies so far.
func (k *soakRun) RoundDone(round int, seed uint64, of int, took time.Duration) {
	k.round.done()
	if k.cfg.c.quiet {
		return
	}
	n := k.Tally.Total
	fmt.Fprintf(k.log, "round %d (seed %d): %d of %d cells in %s; %d cells, %s elapsed; so far %d caught as declared, %d unexpected, %d missed, %d inconclusive\n",
		round, seed, k.Tally.InRound[round], of, reports.SoakDuration(took), n.Cells, reports.SoakDuration(time.Since(k.Started)),
		n.Caught, n.Unexpected, n.Missed, n.Inconclusive)
}

// alert reports a cell not as declared at once.
func (k *soakRun) alert(tty bool, r scenarios.Result) {
	if tty {
		fmt.Fprint(k.log, "\r\033[K")
	}
	fmt.Fprintln(k.log, reports.Alert(r))
}
