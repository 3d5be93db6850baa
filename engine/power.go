package engine

import (
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
)

// powered is when a race-hunting cell against a service sends its next
// round: while its same-key overlaps are below the power target and its
// budget is not spent (nil for every other cell: all its stages run).
func powered(c scenarios.Cell, sc scenarios.Scenario, since func() time.Duration) func([]history.Attempt) bool {
	if !c.Powered(sc) {
		return nil
	}
	goal := c.Target.Power.WithDefaults()
	return func(atts []history.Attempt) bool {
		return since() < goal.Budget && scenarios.Overlaps(history.History{Attempts: atts}) < goal.Target
	}
}
