package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// TestHoldProbesThatShowAFastService: probes that decided nothing because
// every first request was answered within HoldMinCharge show a service too
// fast to probe (a note, no assumption failed); probes whose first
// requests were slower, or that got no answer, leave holds unproved.
func TestHoldProbesThatShowAFastService(t *testing.T) {
	for _, c := range []struct {
		name     string
		h        check.HoldProbes
		unproved bool
		note     bool
	}{
		{"fast", check.HoldProbes{Pairs: 6, Undecided: 6, FirstSlowest: 12 * time.Millisecond}, false, true},
		{"slow but undecided", check.HoldProbes{Pairs: 6, Undecided: 6, FirstSlowest: 200 * time.Millisecond}, true, false},
		{"no first answered", check.HoldProbes{Pairs: 6, Undecided: 6}, true, false},
		{"decided", check.HoldProbes{Pairs: 6, Refused: 5, Undecided: 1, FirstSlowest: 12 * time.Millisecond}, false, false},
	} {
		why, note := holdsAssumption(&c.h), holdsNote(&c.h)
		if (why != "") != c.unproved || (note != "") != c.note {
			t.Errorf("%s: assumption %q, note %q", c.name, why, note)
		}
		if c.note && !strings.Contains(note, "12ms") {
			t.Errorf("%s: the note does not say how fast: %q", c.name, note)
		}
	}
}
