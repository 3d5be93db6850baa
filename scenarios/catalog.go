package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Params shape a plan.
type Params struct {
	Replicas int // target replicas (at least 1)
}

// Target is what a scenario needs of the target; zero fields keep the
// defaults. Timeouts are scenario-relative so that no run waits on a
// production-sized TTL.
type Target struct {
	Replicas int // at least this many replicas
	// Spread says Replicas is only what a built-in strategy runs on: a
	// user's service runs the scenario on the URLs it has, one or more.
	Spread   bool
	ClaimTTL time.Duration // how long an in-flight claim lives (default 5s)
	KeyTTL   time.Duration // how long a completed key is kept (default 24h)
}

// GateSpec forces an interleaving: see failpoint.Gate.
type GateSpec struct {
	Hold api.Point
	// Until is the point another request of the key reaches to release the
	// held one; "": only its answer does (the client got it), so everything
	// that request did, its stored response among it, happened first.
	Until   api.Point
	Timeout time.Duration
}

// Scenario is a named traffic and fault pattern.
type Scenario struct {
	Name    string `json:"name"`
	Doc     string `json:"doc"`
	Reveals string `json:"reveals"`
	// Plan builds the run's plan from its seeded stream.
	Plan func(rng *rand.Rand, p Params) workload.Plan `json:"-"`
	// Assume checks the run exercised what it claims to; each string is a
	// failed assumption, which makes a passing verdict inconclusive.
	Assume func(o Observation) []string `json:"-"`
	Target Target                       `json:"-"`
	Policy client.Policy                `json:"-"`
	// ProbeHolds says a run ends with the hold probes (HoldPlan), against
	// a built-in strategy or a user's service: a duplicate held until its
	// first request was answered is a held_duplicate.
	ProbeHolds bool `json:"-"`
	// Power is the scenario's own power goal (a scenario file's power:
	// section); the command line's flags win. Zero: the defaults.
	Power PowerGoal `json:"-"`
	// Hunts says the scenario hunts a race: against a user's service it
	// sends rounds until its same-key overlaps reach the power aim.
	Hunts bool `json:"-"`
	// Probe sends one more try of every key once every fault has healed and
	// the claim timeout has passed: a key still answering 409 is stuck.
	Probe bool      `json:"-"`
	Gate  *GateSpec `json:"-"`
	// Outlast says the scenario's in-target delays are there only to
	// outlast the client's per-try timeout: against a user's service
	// without the failpoint protocol, its client is timed out inside the
	// service's own charge instead (measured first: Timing), if the charge
	// is slow enough.
	Outlast bool `json:"-"`
	// Exercise is the one fact of a run that says it did what the
	// scenario is about; the zero Exercise: none to count.
	Exercise Exercise `json:"-"`
	// Replicated says the scenario runs on the replicated Postgres: a
	// primary, and a hot standby streaming from it through a Toxiproxy
	// link (its faults are api.ReplicationActions).
	Replicated bool `json:"replicated,omitempty"`
	// Failover says the run's Redis is a replicated topology (a primary,
	// a replica through a proxy, Sentinels), which the plan's store events
	// act on; built-in targets only.
	Failover bool `json:"-"`
	// ServiceOnly says the scenario runs only against a user's service: it
	// faults a store no built-in strategy keeps its keys in (DynamoDB).
	// The built-in matrix leaves it out (BuiltinNames).
	ServiceOnly bool `json:"service_only,omitempty"`
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

// soakNames is a soak's default scenario set: the seeded retry storm and
// every scenario whose faults or timing change with the seed.
var soakNames = []string{"retry-storm", "dropped-response", "db-fault-mid-request", "redis-fault-after-commit",
	"slow-charge", "client-timeout-retry", "replica-fanout", "concurrent-duplicates"}

// SoakNames lists a soak's default scenarios, in the order a soak runs
// them.
func SoakNames() []string { return slices.Clone(soakNames) }

// BuiltinOnly reports whether the scenario runs only against a built-in
// strategy: on replicated stores the harness starts, kills and crashes
// itself, which a user's service does not use.
func (s Scenario) BuiltinOnly() bool { return s.Failover || s.Replicated }

// BuiltinNames lists, in catalog order, the scenarios that can run against
// a built-in strategy: every one not ServiceOnly.
func BuiltinNames() []string {
	var out []string
	for _, s := range catalog {
		if !s.ServiceOnly {
			out = append(out, s.Name)
		}
	}
	return out
}

// ServiceNames lists, in catalog order, the scenarios that can run against
// a user's service (given what each needs): every one not BuiltinOnly.
func ServiceNames() []string {
	var out []string
	for _, s := range catalog {
		if !s.BuiltinOnly() {
			out = append(out, s.Name)
		}
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
