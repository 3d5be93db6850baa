package client

import (
	"math/rand/v2"
	"time"
)

// Policy is the retry policy of the simulated clients.
type Policy struct {
	// PerTry bounds one attempt (default 2s).
	PerTry time.Duration
	// Backoff is the base delay before a retry (default 20ms); it doubles per
	// try up to MaxBackoff (default 200ms), with full jitter drawn from the
	// op's seeded stream.
	Backoff    time.Duration
	MaxBackoff time.Duration
}

func (p Policy) withDefaults() Policy {
	if p.PerTry <= 0 {
		p.PerTry = 2 * time.Second
	}
	if p.Backoff <= 0 {
		p.Backoff = 20 * time.Millisecond
	}
	if p.MaxBackoff < p.Backoff {
		p.MaxBackoff = 10 * p.Backoff
	}
	return p
}

// Delay returns the wait before try next (2, 3, ...): half fixed, half jitter.
func (p Policy) Delay(next int, rng *rand.Rand) time.Duration {
	d := p.Backoff << min(next-2, 16)
	if d > p.MaxBackoff || d <= 0 {
		d = p.MaxBackoff
	}
	return d/2 + time.Duration(rng.Int64N(int64(d/2)+1))
}
