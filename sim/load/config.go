package load

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Bounds of a run: every load the harness puts on a target is bounded in rate,
// time and count.
const (
	MaxRate     = 20000            // requests per second
	MaxDuration = 10 * time.Minute // of the arrival window
	MaxCount    = 1_000_000        // requests per run
	MaxWorkers  = 1024             // closed model
	MaxInflight = 4096             // open model: requests in flight at once
)

// Defaults used when a Config field is zero.
const (
	DefaultInflight  = 512
	DefaultGrace     = time.Second
	DefaultDupWindow = 16
	DefaultAccounts  = 16
)

// Model names.
const (
	Open   = "open"
	Closed = "closed"
)

// Config describes one run of load.
//
// Open model (Rate > 0): request i is due at Intended(i, Rate) after the
// start, whether or not the target has answered the earlier ones; at most
// Inflight requests are outstanding, and a request that must wait for a free
// slot is sent late but keeps its intended time, so its latency (completion
// minus intended time) includes the wait. A stalled target cannot hide its
// queue (no coordinated omission).
//
// Closed model (Workers > 0): Workers loops send back to back; a latency is
// measured from the actual send, and a stalled target slows the offered load
// down, as it does in wrk or pgbench.
type Config struct {
	Rate     float64       // open model: arrivals per second
	Inflight int           // open model: cap on outstanding requests (0: DefaultInflight)
	Grace    time.Duration // open model: a due request may still be sent until Duration+Grace (0: DefaultGrace)
	Workers  int           // closed model: concurrent back-to-back senders

	Duration time.Duration // arrival window
	Count    int           // at most this many requests (0: MaxCount)

	DupRatio  float64 // share of requests that retry an earlier key with the same body
	DupWindow int     // a duplicate reuses one of the last DupWindow fresh keys (0: DefaultDupWindow)
	Accounts  int     // accounts charged, "acct-1".."acct-N" (0: DefaultAccounts)
	Seed      uint64  // root seed of the keys, accounts, amounts and duplicates
}

// Model is Open or Closed.
func (c Config) Model() string {
	if c.Rate > 0 {
		return Open
	}
	return Closed
}

// Validate reports the first way c is out of bounds.
func (c Config) Validate() error {
	switch {
	case c.Rate > 0 && c.Workers > 0:
		return errors.New("choose a rate (open model) or workers (closed model), not both")
	case c.Rate <= 0 && c.Workers <= 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return errors.New("need a positive rate (open model) or a positive number of workers (closed model)")
	case c.Rate > MaxRate:
		return fmt.Errorf("rate %g/s: at most %d/s", c.Rate, MaxRate)
	case c.Workers > MaxWorkers:
		return fmt.Errorf("%d workers: at most %d", c.Workers, MaxWorkers)
	case c.Inflight < 0 || c.Inflight > MaxInflight:
		return fmt.Errorf("in flight %d: want 0 to %d", c.Inflight, MaxInflight)
	case c.Duration <= 0 || c.Duration > MaxDuration:
		return fmt.Errorf("duration %s: want more than 0 and at most %s", c.Duration, MaxDuration)
	case c.Count < 0 || c.Count > MaxCount:
		return fmt.Errorf("count %d: want 0 (no limit but %d) to %d", c.Count, MaxCount, MaxCount)
	case c.Grace < 0 || c.Grace > time.Minute:
		return fmt.Errorf("grace %s: want 0 to 1m", c.Grace)
	case !(c.DupRatio >= 0 && c.DupRatio <= 1):
		return fmt.Errorf("duplicate ratio %g: want 0 to 1", c.DupRatio)
	case c.DupWindow < 0 || c.Accounts < 0:
		return errors.New("duplicate window and accounts must not be negative")
	}
	return nil
}

// Intended is the due time of request i at rate per second: exactly i/rate
// after the start, rounded to the nanosecond. It never accumulates drift.
func Intended(i int, rate float64) time.Duration {
	return time.Duration(math.Round(float64(i) * float64(time.Second) / rate))
}

// Scheduled is how many requests the open model offers: those due before
// Duration, at most the count bound.
func (c Config) Scheduled() int {
	if c.Rate <= 0 {
		return 0
	}
	n := int(math.Ceil(c.Duration.Seconds() * c.Rate))
	if n > 0 && Intended(n-1, c.Rate) >= c.Duration { // float rounding at the edge
		n--
	}
	if Intended(n, c.Rate) < c.Duration {
		n++
	}
	return min(n, c.count())
}

func (c Config) count() int {
	if c.Count == 0 {
		return MaxCount
	}
	return c.Count
}

func (c Config) inflight() int { return orDefault(c.Inflight, DefaultInflight) }

func (c Config) grace() time.Duration {
	if c.Grace == 0 {
		return DefaultGrace
	}
	return c.Grace
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
