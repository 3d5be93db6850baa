package scenarios

import (
	"fmt"
	"math/rand/v2"

	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// FromSpec builds the runnable scenario a scenario file describes, after
// checking the spec again (a spec read back from a saved cell, say): its
// name must not be a built-in scenario's.
func FromSpec(s spec.Spec) (Scenario, error) {
	if err := s.Validate(Names()); err != nil {
		return Scenario{}, fmt.Errorf("scenario %q: %w", s.Name, err)
	}
	return Scenario{
		Name: s.Name, Doc: s.Doc, Reveals: s.Shown(),
		Plan:   func(rng *rand.Rand, p Params) workload.Plan { return s.Plan(rng, p.Replicas) },
		Assume: specAssume(s),
		Target: Target{Replicas: s.Target.Replicas, ClaimTTL: s.Target.ClaimTTL.D(), KeyTTL: s.Target.KeyTTL.D()},
		Policy: client.Policy{PerTry: s.Retries.PerTryTimeout.D(), Backoff: s.Retries.Backoff.D(),
			MaxBackoff: s.Retries.MaxBackoff.D()},
		Probe: s.Probe, Exercise: specExercise(s),
		Hunts: s.Races(), ProbeHolds: s.Races(), Power: PowerGoal{Target: s.Power.Target, Aim: s.Power.Aim, Budget: s.Power.Budget.D()},
	}, nil
}

// specExercise is the fact a spec's run is about: its duplicates
// overlapping when it releases them together, else a retry after an
// answer a fault hid; none when it has neither.
func specExercise(s spec.Spec) Exercise {
	switch {
	case s.Races():
		return exOverlap
	case len(s.Faults) > 0:
		return exHidden
	}
	return Exercise{}
}

// specAssume composes the self-checks of the building blocks the spec uses.
func specAssume(s spec.Spec) func(Observation) []string {
	var checks []func(Observation) []string
	if s.Races() {
		checks = append(checks, assumeOverlap)
	}
	if s.DropsResponses() {
		checks = append(checks, assumeFaultFired)
	}
	if s.Injects() {
		checks = append(checks, assumeInjected)
	}
	return allOf(checks)
}

// allOf runs every check and gathers what failed; nil when there is none.
func allOf(checks []func(Observation) []string) func(Observation) []string {
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
