package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// SoakConfig is a soak: every (strategy, scenario) cell once per round,
// each round with a fresh seed drawn from Root, until Duration or
// MaxRounds ends it.
type SoakConfig struct {
	Strategies, Scenarios []string
	Profile               api.Profile
	Replicas              int
	Root                  uint64
	Duration              time.Duration
	MaxRounds             int
	Out                   string // the run directory ("": none)
	// Shard, when set, runs only the rounds that fall to it: every shard
	// draws the whole seed stream from Root, so the shards of a soak
	// together run the rounds, and seeds, of the unsharded soak. Round
	// numbers (and MaxRounds) count the rounds of the whole soak.
	Shard scenarios.Shard
}

// Soak is a soak in progress, and what it found.
type Soak struct {
	cfg     SoakConfig
	Tally   *results.Tally
	Started time.Time
	Rounds  int
	Stopped string // why no more rounds started
}

// NewSoak prepares a soak.
func NewSoak(cfg SoakConfig) *Soak {
	return &Soak{cfg: cfg, Tally: results.NewTally(cfg.Strategies, cfg.Scenarios), Started: time.Now()}
}

// SoakWatcher sees a soak go by: each round's cells (a Watcher, fresh per
// round) and the end of each round.
type SoakWatcher interface {
	Round(round int, seed uint64, cells int) Watcher
	RoundDone(round int, seed uint64, cells int, took time.Duration)
}

// Run runs rounds until the duration, the round cap or an error ends it.
// Once the duration is up no cell starts; cells in flight finish. A shard
// draws every round's seed and runs the rounds that fall to it.
func (k *Soak) Run(ctx context.Context, executors []Executor, w SoakWatcher) error {
	seeds := newSeedStream(k.cfg.Root)
	deadline := k.Started.Add(k.cfg.Duration)
	for i := 1; i <= k.cfg.MaxRounds; i++ {
		seed := seeds.next()
		if !k.cfg.Shard.OwnsRound(i) {
			continue
		}
		if !time.Now().Before(deadline) {
			k.Stopped = "duration " + k.cfg.Duration.String() + " reached"
			return nil
		}
		k.Rounds++
		if err := k.round(ctx, executors, w, i, seed, time.After(time.Until(deadline))); err != nil {
			k.Stopped = "interrupted"
			if ctx.Err() == nil {
				k.Stopped = "environment error"
			}
			return err
		}
	}
	k.Stopped = fmt.Sprintf("round cap %d reached", k.cfg.MaxRounds)
	return nil
}

// round runs every (strategy, scenario) cell once with seed, as round i.
func (k *Soak) round(ctx context.Context, executors []Executor, w SoakWatcher, i int, seed uint64, stop <-chan time.Time) error {
	cells := k.cells(seed)
	t0 := time.Now()
	watch := &tallying{tally: k.Tally, round: i, next: w.Round(i, seed, len(cells))}
	_, err := RunAll(ctx, executors, cells, Batch{Out: k.cfg.Out, Stop: stop, Watch: watch})
	if err == nil {
		w.RoundDone(i, seed, len(cells), time.Since(t0))
	}
	return err
}

// cells are a round's cells, less those that cannot run (a strategy on
// InnoDB under a scenario of the replicated Postgres).
func (k *Soak) cells(seed uint64) []scenarios.Cell {
	var cells []scenarios.Cell
	for _, st := range k.cfg.Strategies {
		for _, sc := range k.cfg.Scenarios {
			cells = append(cells, scenarios.Cell{Strategy: st, Scenario: sc, Seed: seed, Profile: k.cfg.Profile,
				Replicas: k.cfg.Replicas})
		}
	}
	cells, _ = SplitSkipped(cells)
	return cells
}

// tallying counts each finished cell, then passes it on.
type tallying struct {
	tally *results.Tally
	round int
	next  Watcher
}

func (t *tallying) Start(c scenarios.Cell) { t.next.Start(c) }

func (t *tallying) Finish(res scenarios.Result, rec scenarios.Record) {
	t.tally.Add(res, t.round)
	t.next.Finish(res, rec)
}

// seedLimit keeps round seeds short enough to type: 1 to 999999999.
const seedLimit = 999_999_999

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
		seed := 1 + s.rng.Uint64N(seedLimit)
		if !s.seen[seed] {
			s.seen[seed] = true
			return seed
		}
	}
}
