package engine

import (
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// thisMachine describes where the bench runs.
func thisMachine() results.Machine {
	return results.Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version()}
}

func (b *Bencher) header(started time.Time) results.Bench {
	c := b.cfg.Load
	d := results.Bench{BenchHeader: results.BenchHeader{Kind: results.BenchKind, SchemaVersion: results.BenchSchemaVersion,
		Tool: "idemchaos", Command: "bench", Model: c.Model(), Rate: c.Rate, Concurrency: c.Workers,
		DurationMS: c.Duration.Milliseconds(), DupRatio: c.DupRatio, CountLimit: c.Count, TimeoutMS: b.cfg.Timeout.Milliseconds(),
		KeepAlive: b.cfg.KeepAlive, Accounts: c.Accounts, Seed: c.Seed, Profile: b.cfg.Profile.Name, Started: started.UTC(),
		LatencyFrom: "intended send time", Machine: thisMachine()}, Results: []results.BenchResult{}}
	if d.CountLimit == 0 {
		d.CountLimit = load.MaxCount
	}
	if c.Model() == load.Open {
		d.Inflight = c.Inflight
	} else {
		d.LatencyFrom = "actual send time"
	}
	return d
}

// Summarize turns a load run on one strategy into its figures. Latencies
// count from each request's intended send time (Sample.Timed).
func Summarize(info design.Info, c load.Config, rep load.Report, v check.Report, hidden int) results.BenchResult {
	r := results.BenchResult{Strategy: info.Name, ReplayFrom: info.ReplayFrom, Scheduled: rep.Scheduled,
		Sent: len(rep.Samples), Missed: rep.Missed, Answered: rep.Answered(), AchievedRPS: round(rep.Throughput(), 1),
		ElapsedMS: rep.Elapsed().Milliseconds(), Statuses: map[string]int{}, Errors: load.Errors(rep.Samples),
		Anomalies: anomalyCounts(v.Counts), Overcharged: v.Overcharged, Hidden: hidden}
	r.OfferedRPS = c.Rate
	if c.Model() == load.Closed && c.Duration > 0 {
		r.OfferedRPS = round(float64(r.Sent)/c.Duration.Seconds(), 1)
	}
	timed := make([]history.Attempt, len(rep.Samples))
	var queued time.Duration
	for i, s := range rep.Samples {
		timed[i], queued = s.Timed(), max(queued, s.Queued())
		if s.Request.Dup {
			r.Duplicates++
		}
		if s.Attempt.Status != 0 {
			r.Statuses[strconv.Itoa(s.Attempt.Status)]++
		}
	}
	r.MaxQueuedMS = round(float64(queued)/float64(time.Millisecond), 3)
	lat := results.NewLatencies()
	lat.Add(info.Name, timed)
	r.Latency = lat.Summary()
	return r
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// anomalyCounts keys the checker's counts by name, as the bench document does.
func anomalyCounts(m map[check.Anomaly]int) map[string]int {
	out := make(map[string]int, len(m))
	for a, n := range m {
		out[string(a)] = n
	}
	return out
}
