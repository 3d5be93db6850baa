// Package compare runs idemchaos bench --compare: on stores started once, it
// measures the same strategies with pgbench (the strategy's SQL), wrk (the
// same HTTP endpoint) and idemchaos's own closed and open models,
// interleaved over rounds, and states the ratios between them with their
// ranges and the CPU time each process spent per request. Given a MariaDB,
// it measures innodb-tx beside pg-tx the same way: mysqlslap on its SQL,
// wrk on its endpoint and idemchaos's closed model.
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
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
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
	Mysqlslap   string   // path of mysqlslap ("": not installed, its measurement is left out)
	Dir         string   // scratch directory: scripts and the tools' outputs
	Env         []string // the tools' environment (their PATH, PG* and the like)

	cpu cpuClock // set by Run from the stores
}

// Stores are where every measurement runs: a database for the targets, one
// for pgbench, and Redis; and, for innodb-tx, a MariaDB database for the
// targets and one for mysqlslap (mysql://...; "": the MySQL measurements
// are left out).
type Stores struct {
	BenchDSN, PgbenchDSN, RedisURL string
	MySQLURL, SlapURL              string
	// Groups are the leader processes of the stores started here, by part
	// (PartPostgres, PartRedis, PartMySQL): their CPU time per request is
	// measured. A store given by a loopback URL is found by its listening
	// port.
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
	t, err := newDrivers(ctx, c, s)
	if err != nil {
		return nil, nil, err
	}
	return t.measurers(), t.close, nil
}

// drivers are what the measurements drive the stores and the targets
// with: pgbench, mysqlslap (nil: not installed, or no MariaDB) and the
// Benchers of idemchaos's closed model (with keep-alive, which also deploys
// the targets of wrk; and with a connection per request) and open model.
type drivers struct {
	cfg                   Config
	open                  load.Config
	innoDB                bool // a MariaDB: innodb-tx is measured too
	pgb                   *pgbench
	slap                  *mysqlslap
	keep, perConn, opened *engine.Bencher
}

func newDrivers(ctx context.Context, c Config, s Stores) (*drivers, error) {
	d := &drivers{cfg: c, innoDB: s.MySQLURL != "",
		open: load.Config{Rate: c.Rate, Duration: c.Duration, DupRatio: c.DupRatio, Seed: c.Seed}}
	var err error
	if d.pgb, err = newPgbench(ctx, c, s.PgbenchDSN); err != nil {
		return nil, err
	}
	closed := load.Config{Workers: c.Concurrency, Duration: c.Duration, DupRatio: c.DupRatio, Seed: c.Seed}
	bencher := func(l load.Config, keep bool) (*engine.Bencher, error) {
		return engine.NewBencher(ctx, engine.BenchConfig{Load: l, Timeout: c.Timeout, KeepAlive: keep,
			Profile: c.Profile, MySQLURL: s.MySQLURL}, s.BenchDSN, s.RedisURL)
	}
	var err1, err2, err3, err4 error
	d.keep, err1 = bencher(closed, true)
	d.perConn, err2 = bencher(closed, false)
	d.opened, err3 = bencher(d.open, false)
	if d.innoDB && s.SlapURL != "" && c.Mysqlslap != "" {
		d.slap, err4 = newMysqlslap(ctx, c, s.SlapURL)
	}
	if err := firstErr(err1, err2, err3, err4); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// close releases what newDrivers opened.
func (d *drivers) close() {
	d.pgb.close()
	for _, b := range []*engine.Bencher{d.keep, d.perConn, d.opened} {
		if b != nil {
			b.Close()
		}
	}
	if d.slap != nil {
		d.slap.close()
	}
}

// measurers are the measurements, each tool's beside the others of its
// kind: the SQL alone, wrk, idemchaos's closed model, the open models.
func (d *drivers) measurers() []measurer {
	c, w := d.cfg, wrk{cfg: d.cfg, b: d.keep}
	ms := []measurer{
		{MeasurePgbench, "tps", d.pgb.taker(d.pgb.pgTx)},
		{MeasurePgbenchNone, "tps", d.pgb.taker(d.pgb.none)},
	}
	if d.slap != nil {
		ms = append(ms, measurer{MeasureSlapInnoTx, "tps", d.slap.take})
	}
	ms = append(ms, measurer{MeasureWrkNone, "req/s", w.taker(design.Baseline)},
		measurer{MeasureWrkPgTx, "req/s", w.taker(design.Reference)},
		measurer{MeasureWrkGuard, "req/s", w.taker(design.Guarded)})
	if d.innoDB {
		ms = append(ms, measurer{MeasureWrkInnoTx, "req/s", w.taker(innodb.Tx.Name)})
	}
	ms = append(ms, measurer{MeasureKeepAlive, "req/s", throughput(c, d.keep, design.Reference)},
		measurer{MeasurePerConn, "req/s", throughput(c, d.perConn, design.Reference)})
	if d.innoDB {
		ms = append(ms, measurer{MeasureKeepAliveInnoTx, "req/s", throughput(c, d.keep, innodb.Tx.Name)})
	}
	ms = append(ms, measurer{MeasureOpenNone, "ms p50", p50(c, d.opened, design.Baseline)},
		measurer{MeasureOpenPgTx, "ms p50", p50(c, d.opened, design.Reference)})
	if c.Vegeta != "" {
		v := vegeta{cfg: c, b: d.opened, open: d.open}
		ms = append(ms, measurer{MeasureVegetaPgTx, "ms p50", v.taker(design.Reference)})
	}
	return ms
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
