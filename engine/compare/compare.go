// Package compare runs idemchaos bench --compare: on stores started once, it
// measures the same strategies with pgbench (the strategy's SQL), wrk (the
// same HTTP endpoint) and idemchaos's own closed and open models,
// interleaved over rounds, and states the ratios between them with their
// ranges and the CPU time each process spent per request.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package compare

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/targets/strategy/design"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Bounds of a comparison.
const (
	MaxRounds   = 20
	MaxDuration = 2 * time.Minute // per measurement
)

// Config is one comparison.
type Config struct {
	Rounds      int           // interleaved rounds
	Duration    time.Duration // of each measurement
	Concurrency int           // pgbench clients, wrk connections, closed-model senders
	Rate        float64       // the open model's arrivals per second
	DupRatio    float64       // share of retries of a recent key, same body
	Seed        uint64
	Timeout     time.Duration // per idemchaos request
	Profile     api.Profile
	Pgbench     string   // path of the pgbench binary
	Wrk         string   // path of the wrk binary
	Vegeta      string   // path of the vegeta binary ("": not installed, its measurement is left out)
	Dir         string   // scratch directory: scripts and the tools' outputs
	Env         []string // the tools' environment (their PATH, PG* and the like)

	cpu cpuClock // set by Run from the stores
}

// Stores are where every measurement runs: a database for the targets, one
// for pgbench, and Redis.
type Stores struct {
	BenchDSN, PgbenchDSN, RedisURL string
	// Groups are the leader processes of the stores started here, by part
	// (PartPostgres, PartRedis): their CPU time per request is measured.
	// A store given by a loopback URL is found by its listening port.
	Groups map[string]int
}

// Validate reports the first way c is out of bounds.
func (c Config) Validate() error {
	switch {
	case c.Rounds < 1 || c.Rounds > MaxRounds:
		return fmt.Errorf("--rounds %d: want 1 to %d", c.Rounds, MaxRounds)
	case c.Duration < time.Second || c.Duration > MaxDuration:
		return fmt.Errorf("--duration %s: --compare wants 1s to %s per measurement", c.Duration, MaxDuration)
	case c.Concurrency < 1 || c.Concurrency > 64:
		return fmt.Errorf("--concurrency %d: --compare wants 1 to 64", c.Concurrency)
	case !(c.Rate > 0 && c.Rate <= load.MaxRate):
		return fmt.Errorf("--rate %g: want more than 0 and at most %d", c.Rate, load.MaxRate)
	}
	return nil
}

// measurer takes one measurement: a value in its unit.
type measurer struct {
	name, unit string
	take       func(ctx context.Context, round int) (sample, error)
}

// sample is one measurement: its value, how many requests (or
// transactions) it served, and the CPU time each part spent meanwhile
// (nil when it could not be read).
type sample struct {
	value, count float64
	cpu          reading
}

// Run takes every measurement once per round, in an order rotated by one
// each round, and states the ratios. progress gets a line per measurement.
func Run(ctx context.Context, c Config, s Stores, progress io.Writer) (results.Comparison, error) {
	started := time.Now()
	rep := newReport(c, started)
	c.cpu = cpuClock{groups: s.groups()}
	ms, closeAll, err := measurers(ctx, c, s)
	if err != nil {
		return rep, err
	}
	defer closeAll()
	samples := make([][]sample, len(ms))
	for round := range c.Rounds {
		for j := range ms {
			i := (j + round) % len(ms)
			v, err := ms[i].take(ctx, round)
			if err != nil {
				return rep, fmt.Errorf("round %d, %s: %w", round+1, ms[i].name, err)
			}
			fmt.Fprintf(progress, "round %d/%d  %-40s %10.1f %s%s\n", round+1, c.Rounds, ms[i].name, v.value, ms[i].unit, cpuNote(v))
			samples[i] = append(samples[i], v)
		}
	}
	for i, m := range ms {
		rep.Measurements = append(rep.Measurements, newMeasurement(m.name, m.unit, samples[i]))
	}
	rep.Ratios = ratios(rep.Measurements)
	rep.LoadAfter = loadAverage()
	rep.TookMS = time.Since(started).Milliseconds()
	return rep, nil
}

// measurers builds every measurement on the stores; closeAll releases them.
func measurers(ctx context.Context, c Config, s Stores) ([]measurer, func(), error) {
	pgb, err := newPgbench(ctx, c, s.PgbenchDSN)
	if err != nil {
		return nil, nil, err
	}
	closed := load.Config{Workers: c.Concurrency, Duration: c.Duration, DupRatio: c.DupRatio, Seed: c.Seed}
	open := load.Config{Rate: c.Rate, Duration: c.Duration, DupRatio: c.DupRatio, Seed: c.Seed}
	var benchers []*engine.Bencher
	closeAll := func() {
		pgb.close()
		for _, b := range benchers {
			b.Close()
		}
	}
	bencher := func(l load.Config, keep bool) (*engine.Bencher, error) {
		b, err := engine.NewBencher(ctx, engine.BenchConfig{Load: l, Timeout: c.Timeout, KeepAlive: keep,
			Profile: c.Profile}, s.BenchDSN, s.RedisURL)
		if err == nil {
			benchers = append(benchers, b)
		}
		return b, err
	}
	keep, err1 := bencher(closed, true)
	perConn, err2 := bencher(closed, false)
	openB, err3 := bencher(open, false)
	if err := firstErr(err1, err2, err3); err != nil {
		closeAll()
		return nil, nil, err
	}
	w := wrk{cfg: c, b: keep}
	ms := []measurer{
		{MeasurePgbench, "tps", pgb.taker(pgb.pgTx)},
		{MeasurePgbenchNone, "tps", pgb.taker(pgb.none)},
		{MeasureWrkNone, "req/s", w.taker(design.Baseline)},
		{MeasureWrkPgTx, "req/s", w.taker(design.Reference)},
		{MeasureWrkGuard, "req/s", w.taker(design.Guarded)},
		{MeasureKeepAlive, "req/s", throughput(c, keep, design.Reference)},
		{MeasurePerConn, "req/s", throughput(c, perConn, design.Reference)},
		{MeasureOpenNone, "ms p50", p50(c, openB, design.Baseline)},
		{MeasureOpenPgTx, "ms p50", p50(c, openB, design.Reference)},
	}
	if c.Vegeta != "" {
		v := vegeta{cfg: c, b: openB, open: open}
		ms = append(ms, measurer{MeasureVegetaPgTx, "ms p50", v.taker(design.Reference)})
	}
	return ms, closeAll, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// benchOne runs idemchaos's own load on one strategy. Its CPU window
// holds the deployment and the check around the load (a few
// milliseconds of the window's seconds).
func benchOne(ctx context.Context, c Config, b *engine.Bencher, name string) (results.BenchResult, reading, error) {
	w := c.cpu.begin()
	r, err := b.Run(ctx, name)
	cpu := w.end(0)
	if err != nil {
		return results.BenchResult{}, nil, err
	}
	for a, n := range r.Anomalies {
		if n > 0 && name != design.Baseline { // the baseline double-charges every duplicate
			return r, nil, fmt.Errorf("%s under load: %d %s", name, n, a)
		}
	}
	return r, cpu, nil
}

func throughput(c Config, b *engine.Bencher, name string) func(context.Context, int) (sample, error) {
	return func(ctx context.Context, _ int) (sample, error) {
		r, cpu, err := benchOne(ctx, c, b, name)
		return sample{value: r.AchievedRPS, count: float64(r.Answered), cpu: cpu}, err
	}
}

func p50(c Config, b *engine.Bencher, name string) func(context.Context, int) (sample, error) {
	return func(ctx context.Context, _ int) (sample, error) {
		r, cpu, err := benchOne(ctx, c, b, name)
		return sample{value: r.LatencyOf(results.KindAll).P50, count: float64(r.Answered), cpu: cpu}, err
	}
}
