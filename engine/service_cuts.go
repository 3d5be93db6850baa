package engine

import (
	"cmp"
	"slices"
	"sync"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/api"
)

// cutLog records the store cuts fired on a user's service, each with what
// of the service's traffic met it: a user's proxy is diverted rather than
// disabled (fault.Link.Divert), so the connections the service makes on it
// while it is cut are counted. The judge counts a cut nothing met as a
// fault that never fired (scenarios.StoreCut).
type cutLog struct {
	mu   sync.Mutex
	cuts []scenarios.StoreCut
}

// cut diverts l for the try attempt (a is the plan's cut); what it returns
// heals l and records what met the cut. nil: the cut could not be made.
func (c *cutLog) cut(l *fault.Link, a api.Action, attempt string) func() {
	before := l.Diverted()
	if l.Divert() != nil {
		return nil
	}
	return func() {
		_ = l.Heal()
		seen := l.Diverted().Since(before)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.cuts = append(c.cuts, scenarios.StoreCut{Action: a, Proxy: l.Name, Attempt: attempt, Conns: seen.Conns, Bytes: seen.Bytes})
	}
}

// list is the cuts recorded, by attempt.
func (c *cutLog) list() []scenarios.StoreCut {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.cuts)
	slices.SortStableFunc(out, func(a, b scenarios.StoreCut) int { return cmp.Compare(a.Attempt, b.Attempt) })
	return out
}
