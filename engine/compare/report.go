package compare

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/results"
)

// The measurements, by name.
const (
	MeasurePgbench     = "pgbench, pg-tx SQL"
	MeasurePgbenchNone = "pgbench, none SQL"
	MeasureWrkNone     = "wrk, none"
	MeasureWrkPgTx     = "wrk, pg-tx"
	MeasureWrkGuard    = "wrk, redis-pg-guard"
	MeasureKeepAlive   = "idemchaos closed keep-alive, pg-tx"
	MeasurePerConn     = "idemchaos closed per-connection, pg-tx"
	MeasureOpenNone    = "idemchaos open, none"
	MeasureOpenPgTx    = "idemchaos open, pg-tx"
	MeasureVegetaPgTx  = "vegeta open, pg-tx"

	// innodb-tx on MariaDB, when a MariaDB could be had (mysqlslap's when
	// it is installed too).
	MeasureSlapInnoTx      = "mysqlslap, innodb-tx SQL"
	MeasureWrkInnoTx       = "wrk, innodb-tx"
	MeasureKeepAliveInnoTx = "idemchaos closed keep-alive, innodb-tx"
)

// ratioDef is one ratio of the table: num / den per round, and the goal
// (0: none) it should reach.
type ratioDef struct {
	name, num, den string
	goal           float64
}

var ratioDefs = []ratioDef{
	{"pg-tx / none (wrk, closed)", MeasureWrkPgTx, MeasureWrkNone, 0.85},
	{"redis-pg-guard / none (wrk, closed)", MeasureWrkGuard, MeasureWrkNone, 0.85},
	{"wrk pg-tx / pgbench on the same SQL", MeasureWrkPgTx, MeasurePgbench, 0.7},
	{"idemchaos keep-alive / wrk, pg-tx", MeasureKeepAlive, MeasureWrkPgTx, 0.95},
	{"idemchaos one connection per request / wrk, pg-tx", MeasurePerConn, MeasureWrkPgTx, 0.8},
	{"open model p50, none / pg-tx", MeasureOpenNone, MeasureOpenPgTx, 0},
	{"open model p50, idemchaos / vegeta, pg-tx", MeasureOpenPgTx, MeasureVegetaPgTx, 0},
	{"pgbench pg-tx / none (the SQL alone)", MeasurePgbench, MeasurePgbenchNone, 0},
	{"innodb-tx / pg-tx, the SQL (mysqlslap / pgbench)", MeasureSlapInnoTx, MeasurePgbench, 0},
	{"innodb-tx / pg-tx (wrk, closed)", MeasureWrkInnoTx, MeasureWrkPgTx, 0},
	{"wrk innodb-tx / mysqlslap on the same SQL", MeasureWrkInnoTx, MeasureSlapInnoTx, 0},
	{"idemchaos keep-alive / wrk, innodb-tx", MeasureKeepAliveInnoTx, MeasureWrkInnoTx, 0},
}

func newReport(c Config, started time.Time) results.Comparison {
	return results.Comparison{Kind: results.ComparisonKind, SchemaVersion: results.ComparisonSchemaVersion, Started: started.UTC(),
		Machine:    results.ComparisonMachine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
		LoadBefore: loadAverage(), Rounds: c.Rounds, DurationMS: c.Duration.Milliseconds(), Concurrency: c.Concurrency,
		Rate: c.Rate, DupRatio: c.DupRatio, Measurements: []results.Series{}, Ratios: []results.Ratio{}}
}

func newSeries(name, unit string, v []float64) results.Series {
	s := results.Series{Name: name, Unit: unit, Values: v}
	if len(v) == 0 {
		return s
	}
	sorted := slices.Sorted(slices.Values(v))
	s.Min, s.Max = sorted[0], sorted[len(sorted)-1]
	if n := len(sorted); n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return s
}

// newMeasurement is a measurement's series, with its CPU time per
// request by part where every round could read it.
func newMeasurement(name, unit string, samples []sample) results.Series {
	v := make([]float64, len(samples))
	for i, x := range samples {
		v[i] = x.value
	}
	m := newSeries(name, unit, v)
	for _, part := range parts {
		var us []float64
		for _, x := range samples {
			t, ok := x.cpu[part]
			if !ok || x.count <= 0 {
				break
			}
			us = append(us, math.Round(float64(t.Microseconds())/x.count*10)/10)
		}
		if len(us) == len(samples) && len(us) > 0 {
			m.CPU = append(m.CPU, newSeries(part, "us/request", us))
		}
	}
	var busy []float64
	for _, x := range samples {
		if all := x.cpu[machineAll]; all > 0 {
			busy = append(busy, round3(float64(x.cpu[machineBusy])/float64(all)))
		}
	}
	if len(busy) == len(samples) && len(busy) > 0 {
		b := newSeries(machineBusy, "share", busy)
		m.Busy = &b
	}
	return m
}

// cpuNote is a progress line's CPU time per request, "" when unknown.
func cpuNote(x sample) string {
	t, ok := x.cpu[PartTotal]
	if !ok || x.count <= 0 {
		return ""
	}
	return fmt.Sprintf("   cpu %.0f us/request", float64(t.Microseconds())/x.count)
}

// ratios divides, round by round, the measurements each ratio names (a
// ratio of a measurement left out, vegeta's when it is not installed or
// the MySQL ones without a MariaDB, is left out too).
func ratios(ms []results.Series) []results.Ratio {
	byName := map[string]results.Series{}
	for _, m := range ms {
		byName[m.Name] = m
	}
	out := []results.Ratio{}
	for _, d := range ratioDefs {
		num, okNum := byName[d.num]
		den, okDen := byName[d.den]
		if !okNum || !okDen {
			continue
		}
		var v []float64
		for i := range min(len(num.Values), len(den.Values)) {
			if den.Values[i] > 0 {
				v = append(v, round3(num.Values[i]/den.Values[i]))
			}
		}
		r := results.Ratio{Series: newSeries(d.name, "ratio", v), Goal: d.goal}
		if d.goal > 0 && len(v) > 0 {
			meets := r.Median >= d.goal
			r.Meets = &meets
		}
		out = append(out, r)
	}
	return out
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// loadAverage is the machine's load average (1, 5, 15 minutes), "" where
// the system does not say.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
