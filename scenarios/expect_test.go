package scenarios_test

import (
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// TestDemoTablesCoverEveryScenarioAndAnomaly: every scenario a built-in
// strategy runs has a default demo strategy, and every anomaly a lesson (a
// demo, or why there is none), in the checker's order.
func TestDemoTablesCoverEveryScenarioAndAnomaly(t *testing.T) {
	for _, sc := range scenarios.BuiltinNames() {
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

// TestDeclaredFlawsNameKnownScenariosAndAnomalies: what a strategy's
// definition declares names scenarios of the catalog and anomalies of the
// checker, and every scenario's demo is declared by one strategy only.
func TestDeclaredFlawsNameKnownScenariosAndAnomalies(t *testing.T) {
	demoOf := map[string]string{}
	for _, s := range design.Catalog() {
		for what, d := range map[string]design.Declared{"fails": s.Fails, "never shows": s.NeverShows, "varies": s.Varies} {
			for sc, names := range d {
				if !slices.Contains(scenarios.Names(), sc) {
					t.Errorf("%s %s in unknown scenario %q", s.Name, what, sc)
				}
				for _, n := range names {
					if !slices.Contains(check.Names(), n) {
						t.Errorf("%s %s unknown anomaly %q in %s", s.Name, what, n, sc)
					}
				}
			}
		}
		for _, sc := range s.Demos {
			if other, ok := demoOf[sc]; ok {
				t.Errorf("scenario %s: demo of both %s and %s", sc, other, s.Name)
			}
			demoOf[sc] = s.Name
			if !slices.Contains(scenarios.Names(), sc) {
				t.Errorf("%s demos unknown scenario %q", s.Name, sc)
			}
		}
	}
	if got := scenarios.Expected("redis-setnx", "redis-fault-after-commit", api.IETF); !slices.Equal(got,
		[]check.Anomaly{check.DoubleCharge, check.StoreDesync}) {
		t.Errorf("redis-setnx / redis-fault-after-commit declares %v", got)
	}
}
