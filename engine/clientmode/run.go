// Package clientmode runs a client under test: idemchaos serves the payment
// API (the reference strategy on its own Postgres) in the shape the client
// speaks, puts the seeded faults of a client plan in front of it, runs the
// client as a child process with the operations to make, reads the outcome
// it prints for each, and records what the server received and what the
// ledger holds for scenarios.JudgeClient.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package clientmode

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// Config is one run of a client under test.
type Config struct {
	// Command is the client and its arguments, run in Dir with Environ
	// (the harness's own environment, as the command line passes it) and
	// the run's variables (IDEMCHAOS_URL, IDEMCHAOS_OPS, ...) after it.
	Command []string
	Dir     string
	Environ []string
	// Func, instead of Command, is a client under test in Go, called once
	// per operation in turn: a nil error is the operation told succeeded,
	// an error told failed (its text the detail).
	Func func(ctx context.Context, c Call) error
	// Serve, instead of Command or Func, serves the API on this loopback
	// address (port 0: a free one) for a client run by hand: Served is
	// told what to give it, and its outcome lines are read from Told and
	// from POSTs to ToldPath on the API's address, until every operation
	// has one, Told ends, or the bound passes.
	Serve  string
	Served func(env []string)
	Told   io.Reader
	// Name is the client's name in the results ("": scenarios.ClientName
	// of Command).
	Name  string
	Shape api.Shape
	// RequireKey makes the server refuse a charge without a key (the
	// profile's missing-key status) instead of charging it unprotected.
	RequireKey bool
	Seed       uint64
	Ops        int // operations in the plan; 0: DefaultOps
	// Plan, if given, is the plan to run instead of the one drawn from
	// Seed and Ops (a demo's, made for its story).
	Plan *workload.ClientPlan
	// Bound is the longest the client may run ("": DefaultBound); past it
	// it is killed and the operations it did not report are inconclusive.
	Bound time.Duration
	// Services are the stores the run makes its database on (Postgres;
	// Redis is not used), started by the caller and shared by its runs.
	Services *provision.Services
	// TempDir holds the operations file ("": the system's).
	TempDir string
	// Log gets the harness's progress lines; Output the client's own
	// output (its outcome lines included). Either may be nil.
	Log, Output io.Writer
}

// DefaultOps is a plan's operations: every fault twice, and some clean.
const DefaultOps = 14

// DefaultBound bounds a client's run.
const DefaultBound = 3 * time.Minute

// settle bounds the wait, after the client exited, for the requests it
// left running (a held commit) before the ledger is read.
const settle = 30 * time.Second

// Run runs the client as cfg says and returns what it observed. An error
// is the environment's (a store that would not start, a client that could
// not be started), not the client's verdict.
func Run(ctx context.Context, cfg Config) (scenarios.ClientRecord, error) {
	cfg.Ops, cfg.Bound = cmp.Or(cfg.Ops, DefaultOps), cmp.Or(cfg.Bound, DefaultBound)
	switch {
	case len(cfg.Command) == 0 && cfg.Func == nil && cfg.Serve == "":
		return scenarios.ClientRecord{}, errors.New("client mode needs the client's command (after --), or an address to serve it on")
	case cfg.Services == nil:
		return scenarios.ClientRecord{}, errors.New("client mode needs the stores to serve the API on")
	}
	plan, err := planOf(cfg)
	if err != nil {
		return scenarios.ClientRecord{}, err
	}
	profile := cfg.Shape.Profile
	if cfg.RequireKey && profile.MissingKey == 0 {
		profile.MissingKey = api.IETF.MissingKey
	}
	rec := scenarios.ClientRecord{Name: cmp.Or(cfg.Name, scenarios.ClientName(cfg.Command)), Command: commandLine(cfg),
		Shape: cfg.Shape.Name, Profile: profile, Plan: plan}
	rec.Run.Ops = scenarios.Operations(plan)
	srv, err := serve(ctx, cfg, plan, profile)
	if err != nil {
		return rec, err
	}
	defer func() {
		if err := srv.close(); err != nil {
			fmt.Fprintf(logOf(cfg), "client: stopping the served API: %v\n", err)
		}
	}()
	start := time.Now()
	var out childOut
	switch {
	case cfg.Func != nil:
		out, err = runFunc(ctx, cfg, srv.call(cfg, plan), rec.Run.Ops)
	case cfg.Serve != "":
		out, err = runServed(ctx, cfg, srv, plan, rec.Run.Ops)
	default:
		out, err = runChild(ctx, cfg, srv.env(cfg, plan), rec.Run.Ops)
	}
	if err != nil {
		return rec, err
	}
	rec.Duration = time.Since(start)
	rec.Run.Told, rec.Unread, rec.Exit = out.told, out.unread, out.exit
	if err := srv.settle(ctx, &rec); err != nil {
		return rec, fmt.Errorf("reading what the client's charges left: %w", err)
	}
	return rec, nil
}

// planOf is the run's plan: cfg.Plan, else the seed's.
func planOf(cfg Config) (workload.ClientPlan, error) {
	if cfg.Plan != nil {
		return *cfg.Plan, nil
	}
	return Plan(cfg.Seed, cfg.Ops)
}

// Plan is the client plan of a seed: n operations and their faults.
func Plan(seed uint64, n int) (workload.ClientPlan, error) {
	return workload.NewClientPlan(seed, workload.Seeded(seed, "client"), n)
}
