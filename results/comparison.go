package results

import (
	"encoding/json"
	"io"
	"time"
)

// ComparisonKind and ComparisonSchemaVersion mark a comparison document.
const (
	ComparisonKind          = "bench-compare"
	ComparisonSchemaVersion = 1
)

// Comparison is what `idemchaos bench --compare` measured: each
// measurement's value per round, and the ratios of pairs of them.
type Comparison struct {
	Kind          string            `json:"kind"`
	SchemaVersion int               `json:"schema_version"`
	Started       time.Time         `json:"started"`
	TookMS        int64             `json:"took_ms"`
	Machine       ComparisonMachine `json:"machine"`
	LoadBefore    string            `json:"load_average_before"`
	LoadAfter     string            `json:"load_average_after"`
	Rounds        int               `json:"rounds"`
	DurationMS    int64             `json:"duration_ms"`
	Concurrency   int               `json:"concurrency"`
	Rate          float64           `json:"open_rate"`
	DupRatio      float64           `json:"dup_ratio"`
	Measurements  []Series          `json:"measurements"`
	Ratios        []Ratio           `json:"ratios"`
}

// ComparisonMachine is where the comparison ran.
type ComparisonMachine struct {
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

// The parts a measurement's CPU time is split into, in table order.
const (
	PartPostgres  = "postgres"
	PartRedis     = "redis"
	PartMySQL     = "mysql"     // MariaDB (its process group is provision's "mysql")
	PartIdemchaos = "idemchaos" // this process: the target's server, and idemchaos's client when it drives
	PartTool      = "tool"      // wrk, pgbench, mysqlslap or vegeta
	PartTotal     = "total"
)

// Parts lists the parts a measurement's CPU time is split into, in table
// order.
func Parts() []string {
	return []string{PartPostgres, PartRedis, PartMySQL, PartIdemchaos, PartTool, PartTotal}
}

// WriteComparisonJSON writes the comparison, indented.
func WriteComparisonJSON(w io.Writer, r Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
