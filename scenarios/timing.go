package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
)

// Timing is what the harness measured of a user's service before a cell
// that adapts to it: how long one charge takes as its client sees it, over
// a few charges sent one after another, each with a key of its own.
type Timing struct {
	// Charge is the median of Samples.
	Charge  time.Duration   `json:"charge_ns"`
	Samples []time.Duration `json:"samples_ns"`
}

// Measuring a service: CalibrationCharges charges, of which at least
// CalibrationNeeded must be answered 2xx to take a median of.
const (
	CalibrationCharges = 5
	CalibrationNeeded  = 3
)

// MinOutlast is the fastest charge whose client can be timed out inside it
// from outside: the per-try timeout is a third of the charge and must stay
// well above the jitter of a loopback round trip.
const MinOutlast = 45 * time.Millisecond

// NewTiming takes the median of the charge times measured, samples of the
// sent charges (an error when too few were answered to take one).
func NewTiming(samples []time.Duration, sent int) (*Timing, error) {
	if len(samples) < CalibrationNeeded {
		return nil, fmt.Errorf("only %d of the %d charges sent to measure the service were answered 2xx (%d of %d needed): check --body, --accounts and --success-status",
			len(samples), sent, CalibrationNeeded, CalibrationCharges)
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	return &Timing{Charge: sorted[len(sorted)/2], Samples: samples}, nil
}

// outlastPolicy is the client of a scenario whose in-target delay only
// outlasts the client (Scenario.Outlast), against a service whose charge
// takes charge: each first try times out a third of the way into the
// charge, and the retries (12 tries, backoff from a tenth of the charge up
// to a quarter, half of it jitter) keep arriving for about twice the
// charge: while it is in flight, past any claim TTL shorter than the
// charge, and after it, when the key must replay.
func outlastPolicy(charge time.Duration) client.Policy {
	return client.Policy{PerTry: charge / 3, Backoff: charge / 10, MaxBackoff: charge / 4}
}

// Adaptation says how a cell's scenario was changed to run against a
// user's service, for the reports; Policy is the client the run used
// instead of the scenario's (nil: the scenario's).
type Adaptation struct {
	Policy *client.Policy `json:"policy,omitempty"`
	Notes  []string       `json:"notes"`
}

// ClientPolicy is the client policy the cell's run uses: the adapted one,
// else the scenario's.
func (c Cell) ClientPolicy(sc Scenario) client.Policy {
	if c.Adapted != nil && c.Adapted.Policy != nil {
		return *c.Adapted.Policy
	}
	return sc.Policy
}

// NeedsTiming reports whether the cell's scenario adapts to how long a
// charge takes on the cell's service, which must then be measured first
// (Cell.Timing).
func (c Cell) NeedsTiming() bool {
	sc, err := c.Definition()
	return err == nil && c.under().needsTiming(sc)
}
