package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// clientFlags are client mode's own flags.
type clientFlags struct {
	shape      string
	requireKey bool
	name       string
	seed       uint64
	seeds      int
	ops        int
	bound      time.Duration
	serve      string // --serve: the API for a client run by hand
	stdin      bool   // --stdin: its outcome lines on standard input too
}

func (f *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.shape, "shape", api.JSONShape.Name, "the API shape served: "+strings.Join(api.ShapeNames(), " or ")+
		" (stripe: form-encoded, Stripe's charge and error objects)")
	fs.BoolVar(&f.requireKey, "require-key", false, "refuse a charge without an Idempotency-Key (400) instead of charging it unprotected")
	fs.StringVar(&f.name, "name", "", "the client's name in the results (default: its script's file name)")
	fs.Uint64Var(&f.seed, "seed", 1, "root seed: the same seed gives the same operations and faults")
	fs.IntVar(&f.seeds, "seeds", 1, "run the client once per seed, from --seed on")
	fs.IntVar(&f.ops, "ops", clientmode.DefaultOps, "operations the client is asked to make (at least one per fault)")
	fs.DurationVar(&f.bound, "bound", clientmode.DefaultBound, "the longest one run of the client may take; past it it is killed")
	fs.StringVar(&f.serve, "serve", "", "serve the API on this loopback host:port (port 0: a free one) for a client you run by hand, instead of a command: "+
		"its outcome lines are POSTed to "+clientmode.ToldPath+" there (or given on stdin with --stdin)")
	fs.BoolVar(&f.stdin, "stdin", false, "with --serve: read the client's outcome lines from standard input too")
}

func cmdClient(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	var c common
	c.registerStores(fs)
	var f clientFlags
	f.register(fs)
	c.term.register(fs)
	c.registerDryRun(fs)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	command := fs.Args()
	shape, err := f.check(command)
	if err != nil {
		return err
	}
	view, err := c.view(stdout)
	if err != nil {
		return err
	}
	seeds, err := seedList(f.seed, f.seeds)
	if err != nil {
		return err
	}
	if c.dryRun {
		return clientDryRun(stdout, f, shape, seeds, command)
	}
	if err := prepareOut(c.out, len(seeds)); err != nil {
		return err
	}
	services, err := startStores(ctx, c, stderr)
	if err != nil {
		return err
	}
	defer services.Close()
	log := c.log(stderr)
	started := time.Now()
	cfg := clientmode.Config{Command: command, Environ: os.Environ(), Name: f.name, Shape: shape, RequireKey: f.requireKey, Ops: f.ops, Bound: f.bound,
		Services: services, Log: log, Output: prefixed(log, "  | ")}
	if f.serve != "" {
		cfg.Serve, cfg.Served, cfg.Name = f.serve, announceServed(stderr), cmp.Or(f.name, "served")
		if f.stdin {
			cfg.Told = os.Stdin
		}
	}
	rs, err := runClientSeeds(ctx, cfg, seeds, c.out, log)
	if err != nil {
		return envError(err)
	}
	if err := output(c, stdout, rs, results.NewLatencies(), "client", started, func(w io.Writer) error {
		if len(rs) == 1 {
			return reports.WriteDetail(w, rs[0], view)
		}
		return reports.WriteTable(w, rs, view)
	}); err != nil {
		return err
	}
	announceOut(stderr, c.out)
	return verdictExit(matrixExit(rs))
}

// check validates the flags and the client's command line.
func (f clientFlags) check(command []string) (api.Shape, error) {
	shape, err := api.ShapeNamed(f.shape)
	switch {
	case err != nil:
		return shape, usageErrorf("--shape: %v", err)
	case f.ops < 6 || f.ops > 500:
		return shape, usageErrorf("--ops %d: want 6 (one per fault) to 500", f.ops)
	case f.bound < time.Second:
		return shape, usageErrorf("--bound %s: want at least 1s", f.bound)
	case f.serve != "":
		return shape, f.checkServe(command)
	case f.stdin:
		return shape, usageErrorf("--stdin reads the outcome lines of a client run by hand: it needs --serve")
	case len(command) == 0:
		return shape, usageErrorf("client: the client's command is missing: idemchaos client [flags] -- node charge.js (or --serve 127.0.0.1:0 for a client run by hand)")
	}
	return shape, nil
}

// checkServe validates --serve: a loopback address, no command, one seed.
func (f clientFlags) checkServe(command []string) error {
	switch {
	case len(command) > 0:
		return usageErrorf("client: --serve serves the API for a client run by hand; give it no command (%q)", strings.Join(command, " "))
	case f.seeds != 1:
		return usageErrorf("--serve runs one seed at a time, not --seeds %d", f.seeds)
	}
	return checkLoopback(f.serve)
}

// announceServed says what to give the client run by hand, and where its
// outcome lines go.
func announceServed(w io.Writer) func(env []string) {
	return func(env []string) {
		url := ""
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "IDEMCHAOS_URL="); ok {
				url = v
			}
		}
		fmt.Fprintf(w, "client: serving the payment API on %s; run your client with:\n  %s\n", url, strings.Join(env, " "))
		fmt.Fprintf(w, "then report each operation as a line \"op-01 succeeded ...\" or \"op-01 failed ...\":\n  curl --data-binary @- %s%s  (one or more lines a POST)\n",
			url, clientmode.ToldPath)
	}
}

// runClientSeeds runs the client once per seed, saving each run in out.
func runClientSeeds(ctx context.Context, cfg clientmode.Config, seeds []uint64, out string, log io.Writer) ([]scenarios.Result, error) {
	var rs []scenarios.Result
	for _, seed := range seeds {
		cfg.Seed = seed
		rec, err := clientmode.Run(ctx, cfg)
		if err != nil {
			return nil, err
		}
		res := scenarios.JudgeClient(rec)
		fmt.Fprintf(log, "client %s, seed %d: %s (%d requests, %s)\n", res.Strategy, seed, res.Verdict, res.Requests, res.FaultsSaid())
		if out != "" {
			if err := rundir.WriteClient(rundir.ClientDir(out, res.Strategy, rec.Shape, seed), rec, res); err != nil {
				return nil, err
			}
		}
		rs = append(rs, res)
	}
	return rs, nil
}

// prefixed writes each line to w after prefix.
func prefixed(w io.Writer, prefix string) io.Writer {
	return &prefixWriter{w: w, prefix: prefix, start: true}
}

type prefixWriter struct {
	w      io.Writer
	prefix string
	start  bool // the next byte starts a line
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out strings.Builder
	for _, part := range strings.SplitAfter(string(b), "\n") {
		if part == "" {
			continue
		}
		if p.start {
			out.WriteString(p.prefix)
		}
		out.WriteString(part)
		p.start = strings.HasSuffix(part, "\n")
	}
	if _, err := io.WriteString(p.w, out.String()); err != nil {
		return 0, err
	}
	return len(b), nil
}

// registerStores adds the flags of a command that needs only the stores
// and its outputs.
func (c *common) registerStores(fs *flag.FlagSet) {
	c.registerStoreURLs(fs)
	fs.StringVar(&c.jsonFile, "json", "", "write the canonical JSON results to FILE (- for stdout)")
	fs.StringVar(&c.out, "out", "", "save the run (operations, requests received, outcomes told, ledger, results) in this new directory")
	c.registerQuiet(fs)
}

// clientDryRun says what a client run would ask and do, seed by seed, and
// starts nothing.
func clientDryRun(w io.Writer, f clientFlags, shape api.Shape, seeds []uint64, command []string) error {
	fmt.Fprintf(w, "client %s on the %s API (pg-tx), %d seed(s), each run bounded by %s:\n", scenarios.ClientName(command),
		shape.Name, len(seeds), f.bound)
	for _, seed := range seeds {
		plan, err := clientmode.Plan(seed, f.ops)
		if err != nil {
			return usageErrorf("%v", err)
		}
		fmt.Fprintf(w, "seed %d:\n", seed)
		for _, op := range plan.Ops {
			names := []string{"none"}
			for i, fault := range op.Faults {
				names = append(names[:i], string(fault))
			}
			faults := strings.Join(names, ", then ")
			fmt.Fprintf(w, "  %s  %s  %s %s  faults on its first tries: %s\n", op.ID, op.Account, check.Money(op.Amount), op.Currency, faults)
		}
	}
	return nil
}
