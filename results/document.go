package results

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
)

// SchemaVersion is the version of the canonical JSON document. Fields are only
// ever added within a version.
const SchemaVersion = 1

// Document is the canonical JSON output.
type Document struct {
	SchemaVersion int                `json:"schema_version"`
	Tool          string             `json:"tool"`
	Command       string             `json:"command"`
	Profile       string             `json:"profile"`
	Seeds         []uint64           `json:"seeds"`
	Started       time.Time          `json:"started"`
	DurationMS    int64              `json:"duration_ms"`
	Summary       Summary            `json:"summary"`
	Results       []scenarios.Result `json:"results"`
	// Coverage counts, per (strategy, scenario) whose scenario has an
	// exercise fact, the seeds that exercised it; written by WriteJSON.
	Coverage []CellCoverage `json:"coverage,omitempty"`
	// Latency holds attempt latency percentiles per strategy and answer kind.
	Latency []Latency `json:"latency,omitempty"`
	// Skipped lists the scenarios a user's service could not take, and why.
	Skipped []Skip `json:"skipped,omitempty"`
	// Shard says the document is one shard of a run (matrix --shard,
	// soak --shard): which one, and of which run.
	Shard *scenarios.ShardRecord `json:"shard,omitempty"`
	// Merged lists, by K, the shards idemchaos merge joined into this
	// document. Started is then the first shard's start and DurationMS
	// the longest shard's duration (the run's, its shards side by side).
	Merged []MergedShard `json:"merged,omitempty"`
	// Explorations are the cases explore ran (explore, or a scenario
	// file's explore: in run), one per case, with every order's records:
	// check DIR judges them again from these alone.
	Explorations []explore.Result `json:"explorations,omitempty"`
}

// MergedShard is one of the shards a merged document was made of.
type MergedShard struct {
	K          int       `json:"k"`
	Cells      int       `json:"cells"`
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
}

// Skip is a scenario that did not run against a target, and why.
type Skip struct {
	Strategy string `json:"strategy"`
	Scenario string `json:"scenario"`
	Reason   string `json:"reason"`
}

// Summary counts the results.
type Summary struct {
	Cells        int   `json:"cells"`
	Pass         int   `json:"pass"`
	Fail         int   `json:"fail"`
	Inconclusive int   `json:"inconclusive"`
	Unexpected   int   `json:"unexpected"` // cells whose verdict differs from the catalog's declaration
	Overcharged  int64 `json:"overcharged"`
}

// CellCoverage is one cell's "exercised k/n".
type CellCoverage struct {
	Strategy  string `json:"strategy"`
	Scenario  string `json:"scenario"`
	Exercise  string `json:"exercise"`
	Exercised int    `json:"exercised"`
	Seeds     int    `json:"seeds"`
}

// CoverageOf lists the coverage of the results' cells, in first-seen order.
func CoverageOf(rs []scenarios.Result) []CellCoverage {
	var out []CellCoverage
	for _, c := range Cells(rs) {
		if cov := c.Coverage(); cov.Of > 0 {
			out = append(out, CellCoverage{Strategy: c.Strategy, Scenario: c.Scenario, Exercise: cov.What,
				Exercised: cov.Exercised, Seeds: cov.Of})
		}
	}
	return out
}

// Summarize counts results.
func Summarize(rs []scenarios.Result) Summary {
	s := Summary{Cells: len(rs)}
	for _, r := range rs {
		switch r.Verdict {
		case scenarios.Pass:
			s.Pass++
		case scenarios.Fail:
			s.Fail++
		default:
			s.Inconclusive++
		}
		if !r.AsExpected {
			s.Unexpected++
		}
		s.Overcharged += r.Overcharged
	}
	return s
}

// WriteJSON writes doc, indented.
func WriteJSON(w io.Writer, doc Document) error {
	doc.SchemaVersion, doc.Tool = SchemaVersion, "idemchaos"
	doc.Summary = Summarize(doc.Results)
	doc.Coverage = CoverageOf(doc.Results)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// ReadJSON reads a document written by WriteJSON.
func ReadJSON(r io.Reader) (Document, error) {
	var doc Document
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return doc, fmt.Errorf("read results: %w", err)
	}
	if doc.SchemaVersion != SchemaVersion {
		return doc, fmt.Errorf("read results: schema version %d, this idemchaos reads %d", doc.SchemaVersion, SchemaVersion)
	}
	for _, e := range doc.Explorations {
		if err := e.Check(); err != nil {
			return doc, fmt.Errorf("read results: explorations: %w", err)
		}
	}
	return doc, nil
}

// NewDocument is the canonical document of the results of one command
// started at started, with their latencies.
func NewDocument(rs []scenarios.Result, lat *Latencies, cmd string, started time.Time) Document {
	return Document{Command: cmd, Profile: profileOf(rs), Seeds: seedsOf(rs), Started: started.UTC(),
		DurationMS: time.Since(started).Milliseconds(), Results: rs, Latency: lat.Summary()}
}

// NewExploreDocument is the canonical document of an exploration started
// at started under profile and seed: its cases, and no cell.
func NewExploreDocument(res []explore.Result, profile string, seed uint64, started time.Time) Document {
	return Document{Command: "explore", Profile: profile, Seeds: []uint64{seed}, Started: started.UTC(),
		DurationMS: time.Since(started).Milliseconds(), Results: []scenarios.Result{}, Explorations: res}
}

func profileOf(rs []scenarios.Result) string {
	if len(rs) == 0 {
		return ""
	}
	return rs[0].Profile
}

func seedsOf(rs []scenarios.Result) []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	for _, r := range rs {
		if !seen[r.Seed] {
			seen[r.Seed] = true
			out = append(out, r.Seed)
		}
	}
	return out
}
