package shrink

import (
	"fmt"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/spec"
)

// candidate is a smaller scenario than the current one, and what was cut.
type candidate struct {
	what string
	spec spec.Spec
}

// shortest is the least a timing is halved to.
const shortest = 10 * time.Millisecond

// candidates lists the one-step reductions of s, the biggest cuts first:
// fewer keys, fewer faults, fewer duplicates, fewer tries, then shorter
// timings and the rest of the traffic's frills. Each cuts one count or one
// duration strictly, so the greedy loop ends.
func candidates(s spec.Spec) []candidate {
	var out []candidate
	add := adder(s, &out)
	t := s.Traffic
	for _, to := range cuts(t.Keys, 1) {
		add(fmt.Sprintf("keys %d -> %d", t.Keys, to), func(c *spec.Spec) { c.Traffic.Keys = to })
	}
	for i, f := range s.Faults {
		add(fmt.Sprintf("drop fault %s on try %d", faultName(f), f.Try), func(c *spec.Spec) {
			c.Faults = append(c.Faults[:i:i], c.Faults[i+1:]...)
		})
	}
	for _, to := range cuts(t.Duplicates, 0) {
		add(fmt.Sprintf("duplicates %d -> %d", t.Duplicates, to), func(c *spec.Spec) {
			c.Traffic.Duplicates, c.Traffic.Together = to, c.Traffic.Together && to > 0
		})
	}
	out = append(out, triesCuts(s)...)
	out = append(out, timingCuts(s)...)
	if t.WithoutKey > 0 {
		add("every payment with a key", func(c *spec.Spec) { c.Traffic.WithoutKey = 0 })
	}
	if t.ChangedAmount > 0 {
		add("no changed amounts", func(c *spec.Spec) { c.Traffic.ChangedAmount = 0 })
	}
	if s.Accounts.Count > 1 {
		add(fmt.Sprintf("accounts %d -> 1", s.Accounts.Count), func(c *spec.Spec) { c.Accounts.Count = 1 })
	}
	if s.Probe {
		add("no probe", func(c *spec.Spec) { c.Probe = false })
	}
	return out
}

// triesCuts cuts the tries down to the last try a fault is placed on.
func triesCuts(s spec.Spec) []candidate {
	least := 1
	for _, f := range s.Faults {
		least = max(least, f.Try)
	}
	var out []candidate
	n := s.Retries.MaxTries
	for _, to := range cuts(n, least) {
		c := clone(s)
		c.Retries.MaxTries = to
		out = append(out, candidate{what: fmt.Sprintf("max_tries %d -> %d", n, to), spec: c})
	}
	return out
}

// cuts are the smaller values n is tried at, the biggest cut first: the
// least, half, one less (each once, each above least or at it).
func cuts(n, least int) []int {
	var out []int
	for _, to := range []int{least, n / 2, n - 1} {
		if to >= least && to < n && !slices.Contains(out, to) {
			out = append(out, to)
		}
	}
	return out
}

// timingCuts drops the start window and halves the faults' durations and
// the backoffs, down to shortest. A duration that outlasts a try is not
// halved below the per-try timeout: a fault that made the client give up
// would then do so only on a machine slow enough (a loaded one kept
// retry-storm's 300 ms delay cut to 150 ms under a 200 ms timeout, and
// the file passed once read back on a quieter one).
func timingCuts(s spec.Spec) []candidate {
	var out []candidate
	add := adder(s, &out)
	if s.Traffic.Spread > 0 {
		add(fmt.Sprintf("spread %s -> 0s", s.Traffic.Spread), func(c *spec.Spec) { c.Traffic.Spread = 0 })
	}
	try := s.Retries.PerTryTimeout.D()
	for i, f := range s.Faults {
		if d := f.Duration.D(); d >= 2*shortest && (try == 0 || d < try || d/2 >= try) {
			add(fmt.Sprintf("%s %s -> %s", faultName(f), d, d/2), func(c *spec.Spec) { c.Faults[i].Duration /= 2 })
		}
	}
	r := s.Retries
	if r.MaxBackoff.D() >= 2*shortest && r.MaxBackoff/2 >= r.Backoff {
		add(fmt.Sprintf("max_backoff %s -> %s", r.MaxBackoff, r.MaxBackoff/2), func(c *spec.Spec) { c.Retries.MaxBackoff /= 2 })
	}
	return out
}

// adder appends to out the candidate that change makes of a copy of s.
func adder(s spec.Spec, out *[]candidate) func(what string, change func(*spec.Spec)) {
	return func(what string, change func(*spec.Spec)) {
		c := clone(s)
		change(&c)
		*out = append(*out, candidate{what: what, spec: c})
	}
}

// clone copies s with its own fault list.
func clone(s spec.Spec) spec.Spec {
	s.Faults = append([]spec.Fault(nil), s.Faults...)
	return s
}

// faultName is "delay@before-commit", "drop-response".
func faultName(f spec.Fault) string {
	if f.At == "" {
		return f.Kind
	}
	return f.Kind + "@" + f.At
}
