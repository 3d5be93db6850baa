package scenarios_test

import (
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// TestDemoTablesCoverEveryScenarioAndAnomaly: every scenario has a default
// demo strategy, and every anomaly a lesson (a demo, or why there is none),
// in the checker's order.
func TestDemoTablesCoverEveryScenarioAndAnomaly(t *testing.T) {
	for _, sc := range scenarios.Names() {
		if !slices.Contains(design.Names(), scenarios.DemoStrategy(sc)) {
			t.Errorf("scenario %s: default demo strategy %q", sc, scenarios.DemoStrategy(sc))
		}
	}
	names := check.Anomalies()
	lessons := scenarios.Lessons()
	if len(lessons) != len(names) {
		t.Fatalf("%d lessons for %d anomalies", len(lessons), len(names))
	}
	for i, l := range lessons {
		switch {
		case l.Anomaly != names[i]:
			t.Errorf("lesson %d is %s; want %s (the checker's order)", i, l.Anomaly, names[i])
		case l.Shows == "":
			t.Errorf("%s: the lesson says nothing", l.Anomaly)
		case !slices.Contains(scenarios.Names(), l.Scenario) || !slices.Contains(design.Names(), l.Strategy):
			t.Errorf("%s: unknown demo %s / %s", l.Anomaly, l.Scenario, l.Strategy)
		}
	}
}

// TestAWaitingProfileExpectsNoHeldDuplicate: a profile that declares its
// service waits for an in-flight duplicate (in_flight: wait) drops the
// held duplicates the catalog declares; ietf keeps them.
func TestAWaitingProfileExpectsNoHeldDuplicate(t *testing.T) {
	if got := scenarios.Expected("pg-blocking-claim", "forced-race", api.IETF); !slices.Equal(got, []check.Anomaly{check.HeldDuplicate}) {
		t.Errorf("ietf: %v", got)
	}
	waits := api.IETF
	waits.Name, waits.InFlightWait = "patient", true
	if got := scenarios.Expected("pg-blocking-claim", "forced-race", waits); len(got) != 0 {
		t.Errorf("in_flight: wait: %v", got)
	}
}
