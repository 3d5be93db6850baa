// Package scenarios holds the scenario catalog, the declared expectation of
// every strategy under every scenario, and the runner that turns one
// (strategy, scenario, seed) cell into a checked Result.
package scenarios

import (
	"fmt"
	"math/rand/v2"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// Params shape a plan.
type Params struct {
	Replicas int // target replicas (at least 1)
}

// Scenario is a named traffic and fault pattern.
type Scenario struct {
	Name    string `json:"name"`
	Doc     string `json:"doc"`
	Reveals string `json:"reveals"`
	// Plan builds the run's plan from its seeded stream.
	Plan func(rng *rand.Rand, p Params) workload.Plan `json:"-"`
	// Assume checks the run exercised what it claims to; each string is a
	// failed assumption, which makes the verdict inconclusive.
	Assume func(o Observation) []string `json:"-"`
}

var catalog = []Scenario{
	{Name: "concurrent-duplicates", Doc: "K same-key, same-body requests released together by a barrier, over many trials",
		Reveals: "check-then-act races; the 409 contract", Plan: planConcurrent, Assume: assumeOverlap},
	{Name: "dropped-response", Doc: "the response is dropped by Toxiproxy after the server committed; the client retries the same key",
		Reveals: "missing or per-replica idempotency", Plan: planDropped, Assume: assumeFaultFired},
	{Name: "payload-mismatch", Doc: "a retry with the same key and a changed amount",
		Reveals: "a missing request fingerprint", Plan: planMismatch},
	{Name: "missing-key", Doc: "POST without the Idempotency-Key header",
		Reveals: "the profile's status for a missing key", Plan: planMissingKey},
}

// Catalog lists the scenarios in a stable order.
func Catalog() []Scenario { return append([]Scenario(nil), catalog...) }

// Names lists the scenario names in catalog order.
func Names() []string {
	out := make([]string, len(catalog))
	for i, s := range catalog {
		out[i] = s.Name
	}
	return out
}

// Lookup finds a scenario by name.
func Lookup(name string) (Scenario, error) {
	for _, s := range catalog {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %v)", name, Names())
}
