package scenarios

import (
	"fmt"
	"math/rand/v2"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Spec is a scenario defined in a file from the building blocks (traffic
// shape, duplicates, payload changes, faults and their timing). It is saved
// with the cell, so a saved run is judged again without the file. The file
// format is documented in examples/README.md; ParseSpec and LoadSpec read it
// and fill every default, so a saved spec is complete.
type Spec struct {
	Name     string       `json:"name" yaml:"name"`
	Doc      string       `json:"doc,omitempty" yaml:"doc"`
	Reveals  string       `json:"reveals,omitempty" yaml:"reveals"`
	File     string       `json:"file,omitempty" yaml:"-"` // where it was read from
	Accounts SpecAccounts `json:"accounts" yaml:"accounts"`
	Traffic  SpecTraffic  `json:"traffic" yaml:"traffic"`
	Retries  SpecRetries  `json:"retries" yaml:"retries"`
	Faults   []SpecFault  `json:"faults,omitempty" yaml:"faults"`
	Probe    bool         `json:"probe,omitempty" yaml:"probe"`
	Target   SpecTarget   `json:"target" yaml:"target"`
}

// Scenario builds the runnable scenario the spec describes, after checking
// the spec (a spec read back from a saved cell is checked again).
func (s Spec) Scenario() (Scenario, error) {
	if err := s.Validate(); err != nil {
		return Scenario{}, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	return Scenario{
		Name: s.Name, Doc: s.Doc, Reveals: s.reveals(),
		Plan:   func(rng *rand.Rand, p Params) workload.Plan { return s.plan(rng, p) },
		Assume: s.assume(),
		Target: Target{Replicas: s.Target.Replicas, ClaimTTL: s.Target.ClaimTTL.D(), KeyTTL: s.Target.KeyTTL.D()},
		Policy: client.Policy{PerTry: s.Retries.PerTryTimeout.D(), Backoff: s.Retries.Backoff.D(),
			MaxBackoff: s.Retries.MaxBackoff.D()},
		Probe: s.Probe,
	}, nil
}

func (s Spec) reveals() string {
	switch {
	case s.Reveals != "":
		return s.Reveals
	case s.File != "":
		return "custom scenario from " + s.File
	}
	return "custom scenario " + s.Name
}

// assume composes the self-checks of the building blocks the spec uses.
func (s Spec) assume() func(Observation) []string {
	var checks []func(Observation) []string
	if s.Traffic.Together && s.Traffic.Duplicates > 0 {
		checks = append(checks, assumeOverlap)
	}
	if s.dropsResponses() {
		checks = append(checks, assumeFaultFired)
	}
	if s.injects() {
		checks = append(checks, assumeInjected)
	}
	if len(checks) == 0 {
		return nil
	}
	return func(o Observation) []string {
		var out []string
		for _, c := range checks {
			out = append(out, c(o)...)
		}
		return out
	}
}

func (s Spec) dropsResponses() bool {
	for _, f := range s.Faults {
		if f.Kind == FaultDropResponse || f.DropResponse {
			return true
		}
	}
	return false
}

func (s Spec) injects() bool {
	for _, f := range s.Faults {
		if f.Kind != FaultDropResponse {
			return true
		}
	}
	return false
}
