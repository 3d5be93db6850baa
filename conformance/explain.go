package conformance

import (
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Finding explains an anomaly a library shows, by its own code: the
// sentence of the table, and the upstream bug report (steps, expected,
// actual). Documented deviations have no report.
type Finding struct {
	// Targets are the rows it explains: target names, or a family prefix
	// ending in "-" ("fiber-").
	Targets []string
	// Scenarios it explains (nil: any).
	Scenarios []string
	Anomaly   check.Anomaly
	// Text is one sentence that cites the library's file and function.
	Text string
	// Timing says the anomaly shows only when requests meet in a window
	// (it needs enough seeds for a stable verdict).
	Timing bool
	// StandIn says the verdict depends on how the row's stand-in store
	// differs from the one it stands in for (Target.StandIn; Text says
	// which difference): on the real store it may not show.
	StandIn bool
	Report  *Report
}

// Report is a finding as an upstream bug report states it.
type Report struct {
	Title, Steps, Expected, Actual string
}

// explains reports whether f explains anomaly a of target in scenario.
func (f Finding) explains(target, scenario string, a check.Anomaly) bool {
	return f.Anomaly == a && covers(f.Targets, f.Scenarios, target, scenario)
}

// covers reports whether a cell of target in scenario is among targets
// (a name ending in "-" is every target it begins) and scenarios (nil:
// any).
func covers(targets, scenarios []string, target, scenario string) bool {
	if scenarios != nil && !slices.Contains(scenarios, scenario) {
		return false
	}
	return slices.ContainsFunc(targets, func(t string) bool {
		return t == target || strings.HasSuffix(t, "-") && strings.HasPrefix(target, t)
	})
}

// Unproved explains, by a library's own code, why a cell of its row
// proves nothing: a run that could not judge what the scenario is about
// (every retry answered by a stored failure the profile allows, say).
type Unproved struct {
	Targets   []string // as Finding.Targets
	Scenarios []string // nil: any
	Profile   string   // "": any
	Text      string   // one sentence that cites the library's file and function
}

// ExplainInconclusive finds what explains the inconclusive cell of target
// under profile in scenario (nil: nothing does).
func ExplainInconclusive(target, profile, scenario string) *Unproved {
	for i := range Inconclusives {
		u := &Inconclusives[i]
		if (u.Profile == "" || u.Profile == profile) && covers(u.Targets, u.Scenarios, target, scenario) {
			return u
		}
	}
	return nil
}

// Explain finds the finding that explains anomaly a of target in
// scenario (nil: none does: an unexplained verdict).
func Explain(target, scenario string, a check.Anomaly) *Finding {
	for i := range Findings {
		if Findings[i].explains(target, scenario, a) {
			return &Findings[i]
		}
	}
	return nil
}
