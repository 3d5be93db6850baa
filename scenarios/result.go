package scenarios

import (
	"fmt"

	"github.com/idemchaos/idemchaos/scenarios/check"
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
	Strategy    string         `json:"strategy"`
	Scenario    string         `json:"scenario"`
	Seed        uint64         `json:"seed"`
	Profile     string         `json:"profile"`
	Replicas    int            `json:"replicas"`
	Verdict     Verdict        `json:"verdict"`
	Anomalies   map[string]int `json:"anomalies"`
	Overcharged int64          `json:"overcharged"`
	Requests    int            `json:"requests"`
	DurationMS  int64          `json:"duration_ms"`
	// Expected lists the anomalies the catalog declares for this cell (empty: must pass).
	Expected   []string `json:"expected"`
	AsExpected bool     `json:"as_expected"`
	// Assumptions lists the self-checks that failed (why a cell is inconclusive).
	Assumptions []string        `json:"assumptions,omitempty"`
	Faults      int             `json:"faults"`
	Findings    []check.Finding `json:"findings,omitempty"`
	Repro       string          `json:"repro"`
}

// Repro is the one-line command that re-runs a cell.
func Repro(strategy, scenario string, seed uint64, profile string) string {
	s := fmt.Sprintf("idemchaos run --strategy %s --scenario %s --seed %d", strategy, scenario, seed)
	if profile != "" && profile != "ietf" {
		s += " --profile " + profile
	}
	return s
}
