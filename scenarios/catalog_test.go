package scenarios

import (
	"errors"
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// TestNamedFactsNameScenariosAndStrategies: the catalog facts that name
// scenarios or strategies (a soak's defaults, the net/http lesson's pair)
// name ones that exist.
func TestNamedFactsNameScenariosAndStrategies(t *testing.T) {
	for _, n := range SoakNames() {
		if _, err := Lookup(n); err != nil {
			t.Errorf("SoakNames names %q, no scenario", n)
		}
	}
	for _, n := range HTTPResendStrategies() {
		if !slices.Contains(design.Names(), n) {
			t.Errorf("HTTPResendStrategies names %q, no strategy", n)
		}
	}
}

// TestServiceOnlyScenarios: a scenario that faults a store no built-in
// strategy keeps its keys in runs against a user's service only: every
// built-in strategy skips it, saying why, and the built-in matrix leaves
// it out; a service runs it.
func TestServiceOnlyScenarios(t *testing.T) {
	var only []string
	for _, sc := range Catalog() {
		if sc.ServiceOnly {
			only = append(only, sc.Name)
		}
	}
	if !slices.Contains(only, "dynamodb-fault-after-commit") {
		t.Fatalf("service-only scenarios %v; want dynamodb-fault-after-commit among them", only)
	}
	for _, name := range only {
		if slices.Contains(BuiltinNames(), name) || !slices.Contains(ServiceNames(), name) {
			t.Errorf("%s: in the built-in matrix %v, runs against a service %v", name, slices.Contains(BuiltinNames(), name), slices.Contains(ServiceNames(), name))
		}
		_, _, err := Prepare(Cell{Strategy: "redis-setnx", Scenario: name, Seed: 1})
		var skip *SkipError
		if !errors.As(err, &skip) || skip.Reason != SkipServiceOnly {
			t.Errorf("%s against redis-setnx: %v; want it skipped: %s", name, err, SkipServiceOnly)
		}
	}
}
