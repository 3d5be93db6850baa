package scenarios

import (
	"fmt"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Verdict of one cell.
type Verdict string

// Verdicts.
const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
)

// Result is one checked cell: the machine-readable unit every report renders.
type Result struct {
	Strategy    string                `json:"strategy"`
	Scenario    string                `json:"scenario"`
	Seed        uint64                `json:"seed"`
	Profile     string                `json:"profile"`
	Replicas    int                   `json:"replicas"`
	Verdict     Verdict               `json:"verdict"`
	Anomalies   map[check.Anomaly]int `json:"anomalies"`
	Overcharged int64                 `json:"overcharged"`
	// Currency is the currency of the run's amounts (Overcharged, the
	// findings' money); absent from results saved before it was added.
	Currency   string `json:"currency,omitempty"`
	Requests   int    `json:"requests"`
	DurationMS int64  `json:"duration_ms"`
	// Expected lists the anomalies the catalog declares for this cell (empty: must pass).
	Expected   []check.Anomaly `json:"expected"`
	AsExpected bool            `json:"as_expected"`
	// Assumptions lists the self-checks that failed (why a cell is inconclusive).
	Assumptions []string `json:"assumptions,omitempty"`
	// Faults counts the faults the run's plan placed: the entries of its
	// fault schedule, a client plan's faulted tries.
	Faults int `json:"faults"`
	// FaultsMet counts those a request met, where the run counts them
	// (client mode: how many tries the client makes is its own doing);
	// nil where it does not.
	FaultsMet *int            `json:"faults_met,omitempty"`
	Findings  []check.Finding `json:"findings,omitempty"`
	// Deviations are what the profile documents as its service's
	// behaviour (a declined key decided again): shown, never a failure.
	Deviations []check.Finding `json:"deviations,omitempty"`
	Timelines  []Timeline      `json:"timelines,omitempty"`
	Repro      string          `json:"repro"`
	// Service says the target was a user's own service: there is no
	// declaration to read it against, it must pass.
	Service bool `json:"service,omitempty"`
	// Adapted says, a sentence each, how the scenario was changed to run
	// against a user's service (its client timed out inside the service's
	// own charge, faults placed from outside, faults left out).
	Adapted []string `json:"adapted,omitempty"`
	// Exercise names what the scenario is about, as a fact of one run
	// (Scenario.Exercise); Exercised says this run did it. Across the
	// seeds of a cell they are its coverage, "exercised k/n" (Cover).
	Exercise  string `json:"exercise,omitempty"`
	Exercised bool   `json:"exercised,omitempty"`
	// Unexercised says Cover made this pass inconclusive: no seed of its
	// cell exercised what the scenario is about.
	Unexercised bool `json:"unexercised,omitempty"`
	// Holds is what the hold probes showed against a user's service: pairs
	// of a key's first request and a duplicate sent while it was in
	// flight, held, refused or undecided (nil: none were sent).
	Holds *check.HoldProbes `json:"holds,omitempty"`
	// Power is how hard a race-hunting scenario tried against a user's
	// service: its same-key overlaps, rounds and what a pass rules out
	// (nil for the built-in targets and the other scenarios).
	Power *Power `json:"power,omitempty"`
	// Error says the harness could not run the cell (the environment: a
	// ledger that stopped answering, a proxy that failed), in one line; the
	// verdict is then inconclusive and the run's exit code 3. Absent from
	// documents of runs in which every cell ran.
	Error string `json:"error,omitempty"`
}

// FaultsSaid says how many faults the run's plan placed and, where the
// run counts them, how many a request met: "3 planned faults", "12 of 18
// planned faults met".
func (r Result) FaultsSaid() string {
	if r.FaultsMet == nil {
		return fmt.Sprintf("%d planned faults", r.Faults)
	}
	return fmt.Sprintf("%d of %d planned faults met", *r.FaultsMet, r.Faults)
}

// Repro is the one-line command that re-runs a built-in cell.
func Repro(strategy, scenario string, seed uint64, profile string) string {
	return Cell{Strategy: strategy, Scenario: scenario, Seed: seed, Profile: api.Profile{Name: profile}}.Repro()
}

// Repro is the one-line command that re-runs the cell.
func (c Cell) Repro() string { return c.under().repro(c) }

// builtinRepro re-runs a built-in strategy's cell.
func (c Cell) builtinRepro() string {
	return fmt.Sprintf("idemchaos run --strategy %s %s --seed %d%s", c.Strategy, c.scenarioArg(), c.Seed, c.profileArg())
}

// scenarioArg names the cell's scenario on a command line: its file when
// it came from one.
func (c Cell) scenarioArg() string {
	if c.Custom != nil && c.Custom.File != "" {
		return "--scenario-file " + shellQuote(c.Custom.File)
	}
	return "--scenario " + c.Scenario
}

// profileArg is the --profile flag a repro needs ("" for ietf).
func (c Cell) profileArg() string {
	switch {
	case c.Profile.File != "":
		return " --profile " + shellQuote(c.Profile.File)
	case c.Profile.Name != "" && c.Profile.Name != api.IETF.Name:
		return " --profile " + c.Profile.Name
	}
	return ""
}
