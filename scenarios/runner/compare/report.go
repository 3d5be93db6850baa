package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Kind and SchemaVersion mark a comparison document.
const (
	Kind          = "bench-compare"
	SchemaVersion = 1
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
}

// Report is what a comparison measured.
type Report struct {
	Kind          string    `json:"kind"`
	SchemaVersion int       `json:"schema_version"`
	Started       time.Time `json:"started"`
	TookMS        int64     `json:"took_ms"`
	Machine       Machine   `json:"machine"`
	LoadBefore    string    `json:"load_average_before"`
	LoadAfter     string    `json:"load_average_after"`
	Rounds        int       `json:"rounds"`
	DurationMS    int64     `json:"duration_ms"`
	Concurrency   int       `json:"concurrency"`
	Rate          float64   `json:"open_rate"`
	DupRatio      float64   `json:"dup_ratio"`
	Measurements  []Series  `json:"measurements"`
	Ratios        []Ratio   `json:"ratios"`
}

// Machine is where the comparison ran.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
}

// Series is one measurement's value per round.
type Series struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Values []float64 `json:"values"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	// CPU is a measurement's CPU time per request (or transaction) in
	// microseconds, by part (PartPostgres, ..., PartTotal), over the
	// rounds; absent where it could not be read.
	CPU []Series `json:"cpu_us_per_request,omitempty"`
	// Busy is the share of the machine's CPU time (every CPU) that was
	// busy during the measurement, over the rounds: below 1, the load
	// left CPUs idle and its throughput is not what its CPU per request
	// alone would allow.
	Busy *Series `json:"machine_busy_share,omitempty"`
}

// Ratio is one ratio per round (the two measurements of one round).
type Ratio struct {
	Series
	Goal  float64 `json:"goal,omitempty"` // at least this
	Meets *bool   `json:"meets_goal,omitempty"`
}

func newReport(c Config, started time.Time) Report {
	return Report{Kind: Kind, SchemaVersion: SchemaVersion, Started: started.UTC(),
		Machine:    Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
		LoadBefore: loadAverage(), Rounds: c.Rounds, DurationMS: c.Duration.Milliseconds(), Concurrency: c.Concurrency,
		Rate: c.Rate, DupRatio: c.DupRatio, Measurements: []Series{}, Ratios: []Ratio{}}
}

func newSeries(name, unit string, v []float64) Series {
	s := Series{Name: name, Unit: unit, Values: v}
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
func newMeasurement(name, unit string, samples []sample) Series {
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
// ratio of a measurement left out, vegeta's when it is not installed, is
// left out too).
func ratios(ms []Series) []Ratio {
	byName := map[string]Series{}
	for _, m := range ms {
		byName[m.Name] = m
	}
	out := []Ratio{}
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
		r := Ratio{Series: newSeries(d.name, "ratio", v), Goal: d.goal}
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

// WriteJSON writes the report, indented.
func WriteJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes the measurements and the ratios as two tables.
func WriteTable(w io.Writer, r Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "measurement\tunit\tmedian\trange\n")
	for _, m := range r.Measurements {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f to %.1f\n", m.Name, m.Unit, m.Median, m.Min, m.Max)
	}
	fmt.Fprintf(tw, "\nratio\tmedian\trange\tgoal\n")
	for _, q := range r.Ratios {
		goal := "-"
		if q.Meets != nil {
			goal = fmt.Sprintf(">= %.2f %s", q.Goal, map[bool]string{true: "met", false: "NOT met"}[*q.Meets])
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f to %.2f\t%s\n", q.Name, q.Median, q.Min, q.Max, goal)
	}
	writeCPU(tw, r.Measurements)
	fmt.Fprintf(tw, "\n%d rounds of %s each, %d senders, %.0f %% duplicates; %d CPUs; load average %s before, %s after\n",
		r.Rounds, time.Duration(r.DurationMS)*time.Millisecond, r.Concurrency, r.DupRatio*100, r.Machine.CPUs, r.LoadBefore, r.LoadAfter)
	return tw.Flush()
}

// writeCPU writes the CPU time per request by part, when it was read.
func writeCPU(w io.Writer, ms []Series) {
	if !slices.ContainsFunc(ms, func(m Series) bool { return len(m.CPU) > 0 }) {
		return
	}
	fmt.Fprintf(w, "\nCPU per request, us (median)\t%s\tmachine busy\n", strings.Join(parts, "\t"))
	for _, m := range ms {
		cells := make([]string, len(parts))
		for i, part := range parts {
			cells[i] = "-"
			for _, c := range m.CPU {
				if c.Name == part {
					cells[i] = fmt.Sprintf("%.0f", c.Median)
				}
			}
		}
		busy := "-"
		if m.Busy != nil {
			busy = fmt.Sprintf("%.0f %%", m.Busy.Median*100)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", m.Name, strings.Join(cells, "\t"), busy)
	}
	fmt.Fprintf(w, "(idemchaos: this process, the target's server and, in idemchaos's own models, its client; tool: wrk, pgbench or vegeta)\n")
}
