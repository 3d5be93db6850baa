package results

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// A bench document is told from a matrix Document by its kind.
const (
	BenchKind          = "bench"
	BenchSchemaVersion = 1 // fields are only ever added within a version
)

// Bench is the JSON document of `idemchaos bench`: the settings, the machine,
// and one strategy's figures per result.
type Bench struct {
	BenchHeader
	Results []BenchResult `json:"results"`
}

// BenchHeader holds what was run, and where.
type BenchHeader struct {
	Kind          string    `json:"kind"` // always "bench"; absent in documents written before it existed
	SchemaVersion int       `json:"schema_version"`
	Tool          string    `json:"tool,omitempty"`
	Command       string    `json:"command"`
	Model         string    `json:"model"` // open (constant arrival rate) or closed (workers back to back)
	Rate          float64   `json:"rate,omitempty"`
	Concurrency   int       `json:"concurrency,omitempty"`
	Inflight      int       `json:"inflight,omitempty"`
	DurationMS    int64     `json:"duration_ms"`
	DupRatio      float64   `json:"dup_ratio"`
	CountLimit    int       `json:"count_limit"`
	TimeoutMS     int64     `json:"timeout_ms"`
	KeepAlive     bool      `json:"keepalive"`
	Accounts      int       `json:"accounts"`
	Seed          uint64    `json:"seed"`
	Profile       string    `json:"profile"`
	Started       time.Time `json:"started"`
	TookMS        int64     `json:"took_ms"`
	LatencyFrom   string    `json:"latency_from"`
	Machine       Machine   `json:"machine,omitzero"`
}

// Machine is where the bench ran: client, target and stores share it.
type Machine struct {
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
}

// BenchResult is one strategy's figures.
type BenchResult struct {
	Strategy    string         `json:"strategy"`
	ReplayFrom  string         `json:"replay_from"` // where a replayed answer comes from
	Scheduled   int            `json:"scheduled"`
	Sent        int            `json:"sent"`
	Duplicates  int            `json:"duplicates"`
	Missed      int            `json:"missed"` // due but never sent: the target could not keep up
	Answered    int            `json:"answered"`
	OfferedRPS  float64        `json:"offered_rps"`
	AchievedRPS float64        `json:"achieved_rps"`
	ElapsedMS   int64          `json:"elapsed_ms"`
	MaxQueuedMS float64        `json:"max_queued_ms"` // longest wait for a free slot in the client
	Statuses    map[string]int `json:"statuses"`
	Errors      map[string]int `json:"errors"`
	Latency     []Latency      `json:"latency"` // kinds all, first, replay, conflict
	Anomalies   map[string]int `json:"anomalies"`
	Overcharged int64          `json:"overcharged"`
	Hidden      int            `json:"hidden_attempts"`
}

// LatencyOf returns the figures of one kind of answer (zero Count if none).
func (r BenchResult) LatencyOf(kind string) Latency {
	for _, l := range r.Latency {
		if l.Kind == kind {
			return l
		}
	}
	return Latency{Strategy: r.Strategy, Kind: kind}
}

// WriteBenchJSON writes doc, indented, marked as a bench document.
func WriteBenchJSON(w io.Writer, doc Bench) error {
	doc.Kind, doc.SchemaVersion, doc.Tool = BenchKind, BenchSchemaVersion, "idemchaos"
	if doc.Results == nil {
		doc.Results = []BenchResult{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// IsBench tells a bench document from a matrix one: by its kind or, in a
// document written before the kind existed, by its command.
func IsBench(data []byte) bool {
	var head struct{ Kind, Command string }
	if json.Unmarshal(data, &head) != nil {
		return false
	}
	return head.Kind == BenchKind || head.Kind == "" && head.Command == BenchKind
}

// ReadBench reads a document written by WriteBenchJSON.
func ReadBench(r io.Reader) (Bench, error) {
	var doc Bench
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return doc, fmt.Errorf("read bench: %w", err)
	}
	switch {
	case doc.Kind != BenchKind && !(doc.Kind == "" && doc.Command == BenchKind):
		return doc, fmt.Errorf("read bench: kind %q, want %q", doc.Kind, BenchKind)
	case doc.SchemaVersion != BenchSchemaVersion:
		return doc, fmt.Errorf("read bench: schema version %d, this idemchaos reads %d", doc.SchemaVersion, BenchSchemaVersion)
	}
	doc.Kind = BenchKind
	return doc, nil
}
