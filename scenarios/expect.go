package scenarios

import (
	"slices"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// This file reads the track record: what every strategy must show under
// every scenario, declared in its definition (targets/strategy/design), and
// which cells the demos tell. A flawed strategy that stops being caught is
// a regression of the harness.

// declared converts a strategy's declared anomaly names for a scenario.
func declared(d design.Declared, scenario string) []check.Anomaly {
	var out []check.Anomaly
	for _, n := range d[scenario] {
		out = append(out, check.Anomaly(n))
	}
	return out
}

// info is a strategy's definition; an unknown name declares nothing.
func info(strategy string) design.Info {
	s, _ := design.Lookup(strategy)
	return s
}

// Lesson is the demo that shows one anomaly class, and what the room sees.
// Every anomaly class has one, in its definition: a test keeps it so.
type Lesson struct {
	Anomaly            check.Anomaly
	Scenario, Strategy string
	Shows              string
}

// DemoStrategy is the strategy the demo of scenario shows unless told
// otherwise.
func DemoStrategy(scenario string) string { return design.DemoOf(scenario) }

// Lessons lists the demo of every anomaly class, in the checker's order.
func Lessons() []Lesson {
	var out []Lesson
	for _, d := range check.Definitions() {
		out = append(out, Lesson{Anomaly: d.Anomaly, Scenario: d.Lesson.Scenario, Strategy: d.Lesson.Strategy, Shows: d.Lesson.Shows})
	}
	return out
}

// Expected returns the anomalies strategy must show under scenario when the
// target promises profile; empty means it must pass. The catalog is written
// for ietf; a profile that allows what ietf forbids (no key, a replayed 5xx)
// drops the anomalies that judge it.
func Expected(strategy, scenario string, profile api.Profile) []check.Anomaly {
	var out []check.Anomaly
	for _, a := range declared(info(strategy).Fails, scenario) {
		if a.AllowedBy(profile) {
			continue
		}
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Varies returns the anomalies strategy may show under scenario on some
// seeds only (design.Info.Varies).
func Varies(strategy, scenario string) []check.Anomaly {
	return varies(info(strategy), scenario)
}

func varies(s design.Info, scenario string) []check.Anomaly {
	out := declared(s.Varies, scenario)
	slices.Sort(out)
	return out
}

// matches reports whether a result is what the catalog declares.
func matches(r Result) bool { return matchesDeclared(r, info(r.Strategy)) }

// matchesDeclared reports whether r is what s declares: a pass where
// nothing is declared, else a failure with every declared anomaly; a
// failure where nothing is declared only with anomalies that vary
// (Varies); never an anomaly it must never show.
func matchesDeclared(r Result, s design.Info) bool {
	for _, a := range declared(s.NeverShows, r.Scenario) {
		if r.Anomalies[a] > 0 {
			return false
		}
	}
	if len(r.Expected) == 0 {
		return r.Verdict == Pass || r.Verdict == Fail && onlyVaries(r, varies(s, r.Scenario))
	}
	if r.Verdict != Fail {
		return false
	}
	for _, a := range r.Expected {
		if r.Anomalies[a] == 0 {
			return false
		}
	}
	return true
}

// onlyVaries reports whether r shows anomalies, each one of those its cell
// may show on some seeds only.
func onlyVaries(r Result, varies []check.Anomaly) bool {
	for a, n := range r.Anomalies {
		if n > 0 && !slices.Contains(varies, a) {
			return false
		}
	}
	return len(varies) > 0
}
