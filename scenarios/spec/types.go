package spec

import (
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Accounts are the accounts opened before the run.
type Accounts struct {
	Count   int   `json:"count" yaml:"count" default:"4"`
	Opening int64 `json:"opening" yaml:"opening" default:"1000000"` // minor units
}

// Traffic is the shape of the requests.
type Traffic struct {
	// Keys is the number of logical payments, each with its own key.
	Keys int `json:"keys" yaml:"keys" default:"10"`
	// Duplicates is how many more requests send each key again.
	Duplicates int `json:"duplicates" yaml:"duplicates"`
	// Together releases the requests of a key at once through a barrier;
	// otherwise each duplicate starts when the previous request finished.
	Together bool `json:"together" yaml:"together"`
	// Spread is the start window: each key starts at an offset drawn in [0, Spread).
	Spread Duration `json:"spread" yaml:"spread" default:"0s"`
	Amount Amount   `json:"amount" yaml:"amount"`
	// ChangedAmount is the share of duplicates sent with another amount.
	ChangedAmount float64 `json:"changed_amount" yaml:"changed_amount"`
	// WithoutKey is the share of payments sent once, without a key.
	WithoutKey float64 `json:"without_key" yaml:"without_key"`
}

// Amount is the range amounts are drawn from, in minor units.
type Amount struct {
	Min int64 `json:"min" yaml:"min" default:"100"`
	Max int64 `json:"max" yaml:"max" default:"2000"`
}

// Retries is the client's retry policy.
type Retries struct {
	MaxTries      int      `json:"max_tries" yaml:"max_tries" default:"3"`
	PerTryTimeout Duration `json:"per_try_timeout" yaml:"per_try_timeout" default:"2s"`
	Backoff       Duration `json:"backoff" yaml:"backoff" default:"20ms"`
	MaxBackoff    Duration `json:"max_backoff" yaml:"max_backoff" default:"200ms"`
}

// Target is what the scenario needs of the target.
type Target struct {
	Replicas int      `json:"replicas" yaml:"replicas" default:"1"`
	ClaimTTL Duration `json:"claim_ttl" yaml:"claim_ttl" default:"5s"`
	KeyTTL   Duration `json:"key_ttl" yaml:"key_ttl" default:"24h"`
}

// Power is what a scenario that releases duplicates together must reach
// against a user's service before its pass counts: the same-key overlaps
// its rounds must put in flight, those they go on to while the budget
// lasts, and the longest it may send rounds for.
type Power struct {
	Target int      `json:"target" yaml:"target" default:"0"`
	Aim    int      `json:"aim" yaml:"aim" default:"0"`
	Budget Duration `json:"budget" yaml:"budget" default:"0s"`
}

// Explore asks idemchaos run for an exploration of its target besides
// the scenario: every order of two requests of one key, in each case
// (docs/explore.md). The cases' names are explore's (--case), checked
// where the kinds are known (scenarios/explore), above this package.
type Explore struct {
	Cases []string `json:"cases,omitempty" yaml:"cases,omitempty"`
}

// Asked reports whether the file asks for an exploration.
func (e Explore) Asked() bool { return len(e.Cases) > 0 }

// maxExploreCases bounds explore.cases.
const maxExploreCases = 32

func (e Explore) validate() error {
	if len(e.Cases) > maxExploreCases {
		return fieldErr("explore.cases", "%d cases; at most %d", len(e.Cases), maxExploreCases)
	}
	for i, c := range e.Cases {
		if !casePattern.MatchString(c) {
			return fieldErr(fmt.Sprintf("explore.cases[%d]", i), "%q is not a case: want a kind, or a kind@point (lost-reply@after-commit)", clip(c, 70))
		}
	}
	return nil
}

// MaxPowerTarget and MaxPowerBudget bound a spec's power.
const (
	MaxPowerTarget = 100000
	MaxPowerBudget = 30 * time.Minute
)

func (p Power) validate() error {
	if err := intIn("power.target", int64(p.Target), 0, MaxPowerTarget); err != nil {
		return err
	}
	if err := intIn("power.aim", int64(p.Aim), 0, MaxPowerTarget); err != nil {
		return err
	}
	if p.Budget < 0 || p.Budget.D() > MaxPowerBudget {
		return fieldErr("power.budget", "%s: want 0 to %s", p.Budget, time.Duration(MaxPowerBudget))
	}
	return nil
}

// The fault kinds of a spec.
const (
	KindDropResponse = workload.DropResponse   // client side: the response is lost after the server answered
	KindDelay        = string(api.Delay)       // in the target: the request waits at the failpoint
	KindPGCut        = string(api.PGCut)       // in the target: the app-to-Postgres link is cut
	KindRedisCut     = string(api.RedisCut)    // in the target: the app-to-Redis link is cut
	KindPGLatency    = string(api.PGLatency)   // in the target: latency on the app-to-Postgres link
	KindPGDropReply  = string(api.PGDropReply) // in the target: what Postgres answers is lost (a COMMIT goes through unheard)
)

// Fault places one fault on a share of the requests.
type Fault struct {
	Kind string `json:"kind" yaml:"kind"`
	// At is the failpoint of an in-target fault.
	At string `json:"at,omitempty" yaml:"at"`
	// Duration is the length of a delay or of pg-latency.
	Duration Duration `json:"duration,omitempty" yaml:"duration" default:"0s"`
	// Share is the share of the requests whose try Try meets the fault.
	Share float64 `json:"share" yaml:"share" default:"1"`
	Try   int     `json:"try" yaml:"try" default:"1"`
	// DropResponse also drops the response of the tries an in-target fault hits.
	DropResponse bool `json:"drop_response,omitempty" yaml:"drop_response"`
}

// Duration is a time.Duration written as a Go duration string ("250ms").
type Duration time.Duration

// D is the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes the duration as "250ms".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("want a duration such as \"500ms\", got %q", clip(string(b), 40))
	}
	*d = Duration(v)
	return nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
