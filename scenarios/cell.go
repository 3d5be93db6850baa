package scenarios

import (
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Cell is one (strategy, scenario, seed) run.
type Cell struct {
	Strategy string        `json:"strategy"`
	Scenario string        `json:"scenario"`
	Seed     uint64        `json:"seed"`
	Profile  api.Profile   `json:"profile"`
	Replicas int           `json:"replicas"`     // default: the scenario's, else 1
	ClaimTTL time.Duration `json:"claim_ttl_ns"` // default: the scenario's, else 5s
	KeyTTL   time.Duration `json:"key_ttl_ns"`   // default: the scenario's, else 24h
	// Custom is the scenario when it came from a file; Scenario is its name.
	Custom *spec.Spec `json:"custom,omitempty"`
	// Target is the user's own service under test; nil: the built-in
	// Strategy, deployed by the engine.
	Target *External `json:"target,omitempty"`
	// Timing is the service's charge time, measured before the cell by
	// the engine when the cell NeedsTiming.
	Timing *Timing `json:"timing,omitempty"`
	// Adapted says how Prepare changed the scenario to run against the
	// service (nil: not at all).
	Adapted *Adaptation `json:"adapted,omitempty"`
}

// Definition is the scenario the cell runs: from its file spec, else the
// catalog.
func (c Cell) Definition() (Scenario, error) {
	if c.Custom != nil {
		return FromSpec(*c.Custom)
	}
	return Lookup(c.Scenario)
}

// Prepare fills the cell's defaults from its scenario and derives the plan
// and fault schedule from the seed alone: the same cell always gets the same
// plan, which can be saved before anything runs.
func Prepare(c Cell) (Cell, workload.Plan, error) {
	sc, err := c.Definition()
	if err != nil {
		return c, workload.Plan{}, err
	}
	u := c.under()
	if reason := u.skip(sc); reason != "" {
		return c, workload.Plan{}, &SkipError{Scenario: sc.Name, Reason: reason}
	}
	c = u.defaults(c, sc)
	plan := sc.Plan(workload.Seeded(c.Seed, "plan/"+sc.Name), Params{Replicas: c.Replicas})
	if c.Powered(sc) {
		plan = withLags(withRounds(sc, c.Seed, Params{Replicas: c.Replicas}, plan), lagRand(c, sc), lagWindow(c))
	}
	var skip string
	if c, plan, skip = u.adapt(c, sc, plan); skip != "" {
		return c, workload.Plan{}, &SkipError{Scenario: sc.Name, Reason: skip}
	}
	if err := plan.Validate(); err != nil {
		return c, plan, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	return c, plan, nil
}

// defaultClaimTTL is the claim lifetime when a scenario does not shorten it.
const defaultClaimTTL = 5 * time.Second
