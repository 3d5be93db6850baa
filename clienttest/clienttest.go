// Package clienttest judges a team's own payment client from a Go test:
// idemchaos serves the payment API (pg-tx on a Postgres it starts) with
// seeded faults in front of it (answers dropped after the commit, resets,
// a commit held while the client retries, 503 and 429 with Retry-After,
// answers after the client's timeout), the client makes the charges it is
// asked for, and every rule of the client's half of the Idempotency-Key
// contract it broke is reported as a test error with its evidence: a
// retry under a new key or none, a key for two operations, a changed body,
// no back-off, a failure told for a charge that happened. A test needs
// this one import:
//
//	func TestPaymentsClient(t *testing.T) {
//		clienttest.Run(t, clienttest.Func(func(ctx context.Context, c clienttest.Call) error {
//			_, err := payments.New(c.URL, c.Timeout).Charge(ctx, c.Op.Account, c.Op.Amount, c.Op.Currency)
//			return err
//		}))
//	}
//
// The client may also be a command (Command("node", "charge.js")), run as
// `idemchaos client` runs it (docs/clients.md). A run that could not show
// the client kept its half (an operation never made, a fault never met)
// is a test error too: it proved nothing.
//
// It is a stable API: the way a team's own tests drive client mode.
package clienttest

import (
	"context"
	"os"
	"time"

	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// The types a test needs, so that it imports this package alone.
type (
	// Op is one operation the client is asked to make: a charge of
	// Amount minor units of Currency on Account, which is its own.
	Op = history.Operation
	// Result is one checked run of the client.
	Result = scenarios.Result
)

// Call is what a Go client is given for one operation: the API's base
// URL, the request timeout to use (answers that come later are the
// slow-answer fault), the API's shape ("json" or "stripe") and the
// operation.
type Call struct {
	URL     string
	Timeout time.Duration
	Shape   string
	Op      Op
}

// Client is the client under test: a Go function, or a command.
type Client struct {
	// Func makes one operation: nil means the client would tell its user
	// the charge succeeded, an error that it failed (the error's text is
	// what it would show).
	Func func(ctx context.Context, c Call) error
	// Command is run once per seed in Dir, with IDEMCHAOS_URL,
	// IDEMCHAOS_OPS, IDEMCHAOS_TIMEOUT_MS and IDEMCHAOS_SHAPE, and prints
	// one line per operation ("op-01 succeeded ...", "op-01 failed ...").
	Command []string
	Dir     string
	// Name names it in the results (default: the test's, or the
	// command's script).
	Name string
}

// Func is a client in Go.
func Func(f func(ctx context.Context, c Call) error) Client { return Client{Func: f} }

// Command is a client run as a process.
func Command(name string, args ...string) Client {
	return Client{Command: append([]string{name}, args...)}
}

// settings are the options of a run.
type settings struct {
	shape      api.Shape
	requireKey bool
	seeds      []uint64
	ops        int
	bound      time.Duration
}

// Option changes how the client is tested.
type Option func(*settings)

// Shape serves the API in another shape: "stripe" (form-encoded,
// Stripe's charge and error objects, Idempotent-Replayed). The default is
// "json", the built-in API. An unknown name fails the test.
func Shape(name string) Option {
	return func(s *settings) { s.shape, _ = api.ShapeNamed(name) }
}

// RequireKey makes the API refuse a charge without a key (400) instead of
// charging it unprotected.
func RequireKey() Option { return func(s *settings) { s.requireKey = true } }

// Seeds runs the client once per seed (default 1, 2, 3): each seed deals
// other faults to other operations.
func Seeds(seeds ...uint64) Option { return func(s *settings) { s.seeds = seeds } }

// Ops is how many operations each run asks for (default 8; at least 6,
// one per fault).
func Ops(n int) Option { return func(s *settings) { s.ops = n } }

// Bound is the longest one run may take (default 2 minutes).
func Bound(d time.Duration) Option { return func(s *settings) { s.bound = d } }

func configure(opts []Option) settings {
	s := settings{shape: api.JSONShape, seeds: []uint64{1, 2, 3}, ops: 8, bound: 2 * time.Minute}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// config is the engine's configuration of one run of c.
func (c Client) config(s settings, seed uint64) clientmode.Config {
	cfg := clientmode.Config{Command: c.Command, Dir: c.Dir, Name: c.Name, Shape: s.shape, RequireKey: s.requireKey,
		Seed: seed, Ops: s.ops, Bound: s.bound}
	if c.Func != nil {
		cfg.Func = func(ctx context.Context, call clientmode.Call) error {
			return c.Func(ctx, Call{URL: call.URL, Timeout: call.Timeout, Shape: call.Shape, Op: call.Op})
		}
	}
	if c.Command != nil {
		cfg.Environ = os.Environ()
	}
	return cfg
}
