package reports

import (
	"io"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
)

// The run's records and their JSON moved to package results, below both
// the engine and the renderers. The names below keep code written against
// this package building for one release; they will be removed in the next.

// Deprecated: use results.SchemaVersion.
const SchemaVersion = results.SchemaVersion

// Deprecated: use results.BenchKind and results.BenchSchemaVersion.
const (
	BenchKind          = results.BenchKind
	BenchSchemaVersion = results.BenchSchemaVersion
)

// Deprecated: use results.KindAll and its siblings.
const (
	KindAll      = results.KindAll
	KindFirst    = results.KindFirst
	KindReplay   = results.KindReplay
	KindConflict = results.KindConflict
)

type (
	// Deprecated: use results.Document.
	Document = results.Document
	// Deprecated: use results.MergedShard.
	MergedShard = results.MergedShard
	// Deprecated: use results.Skip.
	Skip = results.Skip
	// Deprecated: use results.Summary.
	Summary = results.Summary
	// Deprecated: use results.CellCoverage.
	CellCoverage = results.CellCoverage
	// Deprecated: use results.Cell.
	Cell = results.Cell
	// Deprecated: use results.Latency.
	Latency = results.Latency
	// Deprecated: use results.Latencies.
	Latencies = results.Latencies
	// Deprecated: use results.Bench.
	Bench = results.Bench
	// Deprecated: use results.BenchHeader.
	BenchHeader = results.BenchHeader
	// Deprecated: use results.BenchResult.
	BenchResult = results.BenchResult
	// Deprecated: use results.Machine.
	Machine = results.Machine
	// Deprecated: use results.Tally.
	Tally = results.Tally
	// Deprecated: use results.StrategyTally.
	StrategyTally = results.StrategyTally
	// Deprecated: use results.Counts.
	Counts = results.Counts
)

// Deprecated: use results.WriteJSON.
func WriteJSON(w io.Writer, doc Document) error { return results.WriteJSON(w, doc) }

// Deprecated: use results.ReadJSON.
func ReadJSON(r io.Reader) (Document, error) { return results.ReadJSON(r) }

// Deprecated: use results.NewDocument.
func NewDocument(rs []scenarios.Result, lat *Latencies, cmd string, started time.Time) Document {
	return results.NewDocument(rs, lat, cmd, started)
}

// Deprecated: use results.Summarize.
func Summarize(rs []scenarios.Result) Summary { return results.Summarize(rs) }

// Deprecated: use results.CoverageOf.
func CoverageOf(rs []scenarios.Result) []CellCoverage { return results.CoverageOf(rs) }

// Deprecated: use results.Cells.
func Cells(rs []scenarios.Result) []Cell { return results.Cells(rs) }

// Deprecated: use results.NewLatencies.
func NewLatencies() *Latencies { return results.NewLatencies() }

// Deprecated: use results.WriteBenchJSON.
func WriteBenchJSON(w io.Writer, doc Bench) error { return results.WriteBenchJSON(w, doc) }

// Deprecated: use results.ReadBench.
func ReadBench(r io.Reader) (Bench, error) { return results.ReadBench(r) }

// Deprecated: use results.IsBench.
func IsBench(data []byte) bool { return results.IsBench(data) }

// Deprecated: use results.NewTally.
func NewTally(strategies, scens []string) *Tally { return results.NewTally(strategies, scens) }
