package clienttest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// shared are the stores Main started for the package's tests; nil: each
// Run starts its own.
var shared *provision.Services

// Main starts the stores once for a package's tests, runs them and stops
// the stores: os.Exit(clienttest.Main(m)) from TestMain. Without it each
// Run starts and stops its own (a second or two each).
func Main(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := provision.Start(ctx, provision.Config{})
	cancel()
	if err != nil {
		fmt.Printf("FAIL: clienttest needs Postgres (and Redis) to serve the API: %v\n", err)
		return 3
	}
	shared = s
	code := m.Run()
	if err := s.Close(); err != nil {
		fmt.Printf("clienttest: stopping the stores: %v\n", err)
		return max(code, 1)
	}
	return code
}

// Run tests the client on each seed and reports, as errors of t at the
// line that called it, every anomaly with its evidence and the command
// that repeats the run; a run that proved nothing is an error too. It
// returns the results.
func Run(t testing.TB, c Client, opts ...Option) []Result {
	t.Helper()
	s := configure(opts)
	if c.Name == "" && c.Func != nil {
		c.Name = t.Name()
	}
	var out []Result
	for _, seed := range s.seeds {
		res, err := check(t.Context(), c, s, seed)
		if err != nil {
			t.Errorf("clienttest: seed %d: %v", seed, err)
			continue
		}
		Report(t, res)
		out = append(out, res)
	}
	return out
}

// Check tests the client on one seed and returns the result; an error is
// the environment's (stores that would not start, a command that would
// not), not the client's verdict.
func Check(ctx context.Context, c Client, seed uint64, opts ...Option) (Result, error) {
	return check(ctx, c, configure(opts), seed)
}

func check(ctx context.Context, c Client, s settings, seed uint64) (Result, error) {
	if s.shape.Name == "" {
		return Result{}, errors.New("unknown API shape (want json or stripe)")
	}
	services, stop, err := stores(ctx)
	if err != nil {
		return Result{}, err
	}
	defer stop()
	cfg := c.config(s, seed)
	cfg.Services = services
	rec, err := clientmode.Run(ctx, cfg)
	if err != nil {
		return Result{}, err
	}
	return scenarios.JudgeClient(rec), nil
}

// stores are the shared ones, or ones started for this run.
func stores(ctx context.Context) (*provision.Services, func(), error) {
	if shared != nil {
		return shared, func() {}, nil
	}
	s, err := provision.Start(ctx, provision.Config{})
	if err != nil {
		return nil, nil, fmt.Errorf("clienttest needs Postgres (and Redis) to serve the API: %w", err)
	}
	return s, func() { _ = s.Close() }, nil
}

// Report turns a result into errors of tb: one per finding, then the
// verdict with the command that repeats it.
func Report(tb testing.TB, res Result) {
	tb.Helper()
	for _, f := range res.Findings {
		tb.Errorf("%s: %s", f.Anomaly, f.Detail)
	}
	switch res.Verdict {
	case scenarios.Fail:
		tb.Errorf("seed %d: the client broke its half of the contract (%d requests); %s", res.Seed, res.Requests, res.Repro)
	case scenarios.Inconclusive:
		tb.Errorf("seed %d proved nothing: %v", res.Seed, res.Assumptions)
	}
}
