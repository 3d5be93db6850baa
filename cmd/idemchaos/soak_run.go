package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// soakSeedLimit keeps round seeds short enough to type: 1 to 999999999.
const soakSeedLimit = 999_999_999

// seedStream derives the round seeds from the root seed: the same root gives
// the same sequence, with no seed twice (a cell's run directory is named by
// its seed).
type seedStream struct {
	rng  *rand.Rand
	seen map[uint64]bool
}

func newSeedStream(root uint64) *seedStream {
	return &seedStream{rng: workload.Seeded(root, "soak/rounds"), seen: map[uint64]bool{}}
}

func (s *seedStream) next() uint64 {
	for {
		seed := 1 + s.rng.Uint64N(soakSeedLimit)
		if !s.seen[seed] {
			s.seen[seed] = true
			return seed
		}
	}
}

// soakRun is one soak in progress.
type soakRun struct {
	cfg     soakConfig
	log     io.Writer
	tally   *tally
	lat     *reports.Latencies
	started time.Time
	rounds  int
	stopped string // why no more rounds started
}

func newSoakRun(cfg soakConfig, log io.Writer) *soakRun {
	return &soakRun{cfg: cfg, log: log, tally: newTally(cfg.strategies, cfg.scenarios), lat: reports.NewLatencies(),
		started: time.Now()}
}

// loop runs rounds until the duration, the round cap or an error ends it.
// Once the duration is up no cell starts; cells in flight finish.
func (k *soakRun) loop(ctx context.Context, runners []*scenarios.Runner) error {
	seeds := newSeedStream(k.cfg.root)
	deadline := k.started.Add(k.cfg.duration)
	for k.rounds < k.cfg.maxRounds {
		if !time.Now().Before(deadline) {
			k.stopped = "duration " + k.cfg.duration.String() + " reached"
			return nil
		}
		k.rounds++
		if err := k.round(ctx, runners, seeds.next(), time.After(time.Until(deadline))); err != nil {
			k.stopped = "interrupted"
			if ctx.Err() == nil {
				k.stopped = "environment error"
			}
			return err
		}
	}
	k.stopped = fmt.Sprintf("round cap %d reached", k.cfg.maxRounds)
	return nil
}

// round runs every (strategy, scenario) cell once with seed.
func (k *soakRun) round(ctx context.Context, runners []*scenarios.Runner, seed uint64, stop <-chan time.Time) error {
	cells := k.cells(seed)
	t0 := time.Now()
	prog := newProgress(k.log, len(cells), k.cfg.quiet)
	prog.quiet = prog.quiet || !prog.tty // a line per round, not per cell
	prog.onFinish = func(r scenarios.Result) {
		if c := k.tally.add(r, k.rounds); c.NotAsDeclared() {
			k.alert(prog.tty, c, r)
		}
	}
	_, err := runCells(ctx, stop, runners, cells, k.cfg.c.out, prog, k.lat)
	prog.done()
	if err == nil && !k.cfg.quiet {
		k.progressLine(seed, len(cells), t0)
	}
	return err
}

func (k *soakRun) cells(seed uint64) []scenarios.Cell {
	var cells []scenarios.Cell
	for _, st := range k.cfg.strategies {
		for _, sc := range k.cfg.scenarios {
			cells = append(cells, scenarios.Cell{Strategy: st, Scenario: sc, Seed: seed, Profile: k.cfg.profile,
				Replicas: k.cfg.c.replicas})
		}
	}
	return cells
}

// progressLine reports a finished round and the anomalies so far.
func (k *soakRun) progressLine(seed uint64, of int, t0 time.Time) {
	n := k.tally.total
	fmt.Fprintf(k.log, "round %d (seed %d): %d of %d cells in %s; %d cells, %s elapsed; so far %d caught as declared, %d unexpected, %d missed, %d inconclusive\n",
		k.rounds, seed, k.tally.inRound[k.rounds], of, roundDur(time.Since(t0)), n.cells, roundDur(time.Since(k.started)),
		n.caught, n.unexpected, n.missed, n.inconclusive)
}

// alert reports a cell not as declared at once: a long soak should not hide
// it until the end.
func (k *soakRun) alert(tty bool, c scenarios.Class, r scenarios.Result) {
	if tty {
		fmt.Fprint(k.log, "\r\033[K")
	}
	fmt.Fprintf(k.log, "%s %s / %s seed %d: %s, %s%s; repro: %s\n", strings.ToUpper(c.String()), r.Strategy, r.Scenario,
		r.Seed, r.Verdict, anomalyText(r.Anomalies), declaredText(r), r.Repro)
}

func roundDur(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
