package shrink

import (
	"fmt"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Saved is the failing cell of a saved run, as a shrink starts from it: dir
// is a finished cell's directory, or a run's, whose first failing cell is
// taken. It returns the config (the cell, the plan it ran, the anomaly to
// keep) and the cell's directory; every error names what it could not read.
func Saved(dir string) (Config, string, error) {
	cellDir, err := failingCell(dir)
	if err != nil {
		return Config{}, "", err
	}
	rec, res, err := rundir.ReadRecord(cellDir)
	if err != nil {
		return Config{}, cellDir, fmt.Errorf("%s: %v", cellDir, err)
	}
	return Config{Cell: rec.Cell, Plan: &rec.Plan, Anomaly: keptAnomaly(res)}, cellDir, nil
}

// failingCell is dir when it is a finished cell's directory, else the
// first cell of the run in dir that failed.
func failingCell(dir string) (string, error) {
	if rundir.Complete(dir) {
		return dir, nil
	}
	rs, err := rundir.Finished(dir)
	if err != nil {
		return "", err
	}
	for _, r := range rs {
		if r.Verdict == scenarios.Fail {
			return rundir.CellDir(dir, scenarios.Cell{Strategy: r.Strategy, Scenario: r.Scenario, Seed: r.Seed}), nil
		}
	}
	return "", fmt.Errorf("%s holds no failing cell: nothing to shrink", dir)
}

// keptAnomaly is the anomaly a saved failing cell shows that the shrink
// keeps: double charge if it shows one, else the first in the checker's order.
func keptAnomaly(r scenarios.Result) check.Anomaly {
	for _, a := range append([]check.Anomaly{check.DoubleCharge}, check.Anomalies()...) {
		if r.Anomalies[a] > 0 {
			return a
		}
	}
	return ""
}
