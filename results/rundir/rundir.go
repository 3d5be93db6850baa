// Package rundir saves a run to a directory and reads it back: the plan and
// fault schedule (written before execution), the attempt-level history, the
// ledger and Redis snapshots, the observation and the result of every cell,
// and the run's document. Every file is written atomically, so a crash never
// leaves a half-written file that a reader mistakes for a whole one.
//
// It sits beside package results, below the engine and the renderers.
// The directory layout is documented (docs/runs.md: saving, re-checking and
// reporting a run) and kept readable by later releases; this package's Go
// API is not stable.
package rundir

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// File names inside a cell directory.
const (
	CellFile        = "cell.json"
	PlanFile        = "plan.json"
	FaultsFile      = "faults.json"
	HistoryFile     = "history.jsonl"
	LedgerFile      = "ledger.json"
	RedisFile       = "redis.json"
	ObservationFile = "observation.json"
	ResultFile      = "result.json"
	// DocumentFile, at the run's root, is the canonical JSON of all results.
	DocumentFile = "results.json"
	// ReportFile, at the run's root, is the HTML report of the results,
	// written with them.
	ReportFile = "report.html"
)

// CellDir is where a cell lives under root.
func CellDir(root string, c scenarios.Cell) string {
	return filepath.Join(root, "cells", c.Strategy, c.Scenario, "seed-"+strconv.FormatUint(c.Seed, 10))
}

// WritePlan saves the cell, its plan and its fault schedule, before the cell runs.
func WritePlan(dir string, c scenarios.Cell, plan workload.Plan) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("run dir: %w", err)
	}
	if err := writeJSON(filepath.Join(dir, CellFile), c); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, PlanFile), plan); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, FaultsFile), plan.Faults())
}

// WriteRecord saves what a cell observed and its result; result.json is
// written last, so its presence means the cell is complete.
func WriteRecord(dir string, rec scenarios.Record, res scenarios.Result) error {
	err := writeAtomic(filepath.Join(dir, HistoryFile), func(w io.Writer) error {
		return history.WriteJSONL(w, rec.Obs.History)
	})
	if err != nil {
		return err
	}
	ledger := rec.Obs.Ledger
	redis := ledger.Redis
	ledger.Redis = nil
	for name, v := range map[string]any{LedgerFile: ledger, RedisFile: redis, ObservationFile: rec} {
		if err := writeJSON(filepath.Join(dir, name), v); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dir, ResultFile), res)
}

// Complete reports whether a cell directory holds a finished cell.
func Complete(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ResultFile))
	return err == nil
}

// ReadRecord loads a finished cell and its saved result.
func ReadRecord(dir string) (scenarios.Record, scenarios.Result, error) {
	var rec scenarios.Record
	var res scenarios.Result
	if err := readJSON(filepath.Join(dir, ObservationFile), &rec); err != nil {
		return rec, res, err
	}
	if err := readJSON(filepath.Join(dir, PlanFile), &rec.Plan); err != nil {
		return rec, res, err
	}
	if err := readJSON(filepath.Join(dir, LedgerFile), &rec.Obs.Ledger); err != nil {
		return rec, res, err
	}
	if err := readJSON(filepath.Join(dir, RedisFile), &rec.Obs.Ledger.Redis); err != nil {
		return rec, res, err
	}
	h, err := readHistory(filepath.Join(dir, HistoryFile))
	if err != nil {
		return rec, res, err
	}
	rec.Obs.History = h
	return rec, res, readJSON(filepath.Join(dir, ResultFile), &res)
}

func readHistory(path string) (history.History, error) {
	f, err := os.Open(path)
	if err != nil {
		return history.History{}, err
	}
	defer f.Close()
	h, err := history.ReadJSONL(f)
	if err != nil {
		return h, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// Cells lists the cell directories under root that hold a plan, and
// those of client mode runs (ClientDir), sorted.
func Cells(root string) ([]string, error) {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a run directory", root)
	}
	found, err := filepath.Glob(filepath.Join(root, "cells", "*", "*", "seed-*", CellFile))
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(found))
	for i, f := range found {
		dirs[i] = filepath.Dir(f)
	}
	clients, err := clientCells(root)
	if err != nil {
		return nil, err
	}
	dirs = append(dirs, clients...)
	sort.Strings(dirs)
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s holds no cells (want %s, or %s for a run of client mode)", root,
			filepath.Join("cells", "STRATEGY", "SCENARIO", "seed-N", CellFile), filepath.Join("clients", "NAME", "SHAPE", "seed-N", ClientFile))
	}
	return dirs, nil
}
