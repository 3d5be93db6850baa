package scenarios

import (
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
