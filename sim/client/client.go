// Package client is the simulated payment client: it performs a plan's
// operations with retries, routes each try as the plan says, and records every
// attempt it puts on the wire.
//
// Go's http.Transport silently re-sends a POST that carries an
// Idempotency-Key when a reused connection fails. This client makes such
// hidden attempts impossible or visible: it speaks HTTP/1.1 itself and never
// sends a request twice, connections are not reused unless asked, and every
// attempt carries an id the server logs, so a re-send shows up as the same id
// twice on the server.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package client

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Routes returns the base URL ("http://host:port") that a try with the given
// replica and fault must use.
type Routes func(replica int, fault string) (string, error)

// Config configures a Client.
type Config struct {
	Routes Routes
	Policy Policy
	// Reuse keeps connections alive between attempts (default: one connection
	// per attempt, so every attempt meets the faults planned for it alone).
	Reuse bool
	// Seed seeds the per-op jitter streams.
	Seed uint64
	// Since returns the time since the run's start.
	Since func() time.Duration
	// Around, when set, runs as each try is sent; what it returns runs when
	// the try has ended (faults a target cannot fire itself, placed from
	// outside around the request).
	Around func(op workload.Op, try int) (after func())
	// Header, when set, gives extra headers for try n of op (the control URL
	// of the failpoint protocol, say); they never replace the key or
	// attempt headers.
	Header func(op workload.Op, try int) http.Header
	// Shape is the request the target expects (zero: the built-in API).
	// Check it first: a shape that does not compile fails every send.
	Shape Shape
	// InFlight are the statuses that say the key is still in flight, a try
	// answered one is retried (the profile's in-flight set; none: 409).
	InFlight []int
}

// Client runs plans.
type Client struct {
	cfg      Config
	wire     *wire
	shape    *shaper
	shapeErr error

	mu   sync.Mutex
	late map[string]history.Late // by attempt id
}

// New builds a client.
func New(cfg Config) *Client {
	cfg.Policy = cfg.Policy.withDefaults()
	if cfg.Since == nil {
		t0 := time.Now()
		cfg.Since = func() time.Duration { return time.Since(t0) }
	}
	c := &Client{cfg: cfg, wire: newWire(cfg.Reuse)}
	c.shape, c.shapeErr = cfg.Shape.compile()
	return c
}

// Close releases idle connections, and those given up on.
func (c *Client) Close() { c.wire.close() }

// FillLate sets Attempt.Late on each attempt of atts whose answer came
// after its client gave up, so far (Close ends the waiting).
func (c *Client) FillLate(atts []history.Attempt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range atts {
		if l, ok := c.late[atts[i].ID]; ok && !atts[i].Hidden {
			atts[i].Late = &l
		}
	}
}

// lateFor records the answer to attempt id that comes after its client
// gave up, when it comes.
func (c *Client) lateFor(id string) func(exchange) {
	return func(ex exchange) {
		l := history.Late{At: c.cfg.Since(), Status: ex.status, Replayed: c.shape.replayed(ex.header)}
		if c.shape.acked(ex.status) {
			l.ChargeID = c.shape.chargeID(ex.body)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.late == nil {
			c.late = map[string]history.Late{}
		}
		c.late[id] = l
	}
}

// Run performs every op of plan and returns the attempts in call order. It
// returns when all ops are done or ctx ends.
func (c *Client) Run(ctx context.Context, plan workload.Plan) []history.Attempt {
	rec := &recorder{}
	if len(plan.Ops) == 1 && plan.Ops[0].After < 0 { // on this goroutine: nothing to wait for
		if op := plan.Ops[0]; sleep(ctx, op.Delay+op.Lag) {
			c.runOp(ctx, op, rec)
		}
		return rec.sorted()
	}
	done := make([]chan struct{}, len(plan.Ops))
	for i := range done {
		done[i] = make(chan struct{})
	}
	gates := newBarriers(plan.Ops)
	var wg sync.WaitGroup
	for i, op := range plan.Ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			if op.After >= 0 && !wait(ctx, done[op.After]) {
				return
			}
			if !sleep(ctx, op.Delay) || !gates.pass(ctx, op.Group) || !sleep(ctx, op.Lag) {
				return
			}
			c.runOp(ctx, op, rec)
		}()
	}
	wg.Wait()
	return rec.sorted()
}

func wait(ctx context.Context, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// runOp performs the tries of one op until one is final.
func (c *Client) runOp(ctx context.Context, op workload.Op, rec *recorder) {
	rng := workloadStream(c.cfg.Seed, op.ID)
	for try := 1; try <= op.MaxTries; try++ {
		a := c.sendAround(ctx, op, try)
		rec.add(a)
		if !c.retryable(a) || try == op.MaxTries || !sleep(ctx, c.cfg.Policy.Delay(try+1, rng)) {
			return
		}
	}
}

func (c *Client) sendAround(ctx context.Context, op workload.Op, try int) history.Attempt {
	if c.cfg.Around != nil {
		if after := c.cfg.Around(op, try); after != nil {
			defer after()
		}
	}
	return c.send(ctx, op, try)
}

// sleep waits d; false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryable: an unknown outcome, a request never sent, or a status that
// says the key is in flight (Config.InFlight; none: 409).
func (c *Client) retryable(a history.Attempt) bool {
	switch a.Outcome {
	case history.Indeterminate, history.NotSent:
		return a.Err != errAborted
	case history.Rejected:
		if len(c.cfg.InFlight) == 0 {
			return a.Status == http.StatusConflict
		}
		return slices.Contains(c.cfg.InFlight, a.Status)
	}
	return false
}

// AttemptID names try n of op.
func AttemptID(op, try int) string { return "o" + strconv.Itoa(op) + "-t" + strconv.Itoa(try) }

type recorder struct {
	mu       sync.Mutex
	attempts []history.Attempt
}

func (r *recorder) add(a history.Attempt) {
	r.mu.Lock()
	r.attempts = append(r.attempts, a)
	r.mu.Unlock()
}

func (r *recorder) sorted() []history.Attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]history.Attempt(nil), r.attempts...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Call != out[j].Call {
			return out[i].Call < out[j].Call
		}
		return out[i].ID < out[j].ID
	})
	return out
}
