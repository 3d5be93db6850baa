package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// exploreFlags are explore's own flags.
type exploreFlags struct {
	strategy    string
	caseName    string
	requests    int
	preemptions int
	bound       time.Duration
	order       string
	repeat      int
	recheck     int
	workers     int
	seed        uint64
}

func (f *exploreFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.strategy, "strategy", "", "the built-in strategy to explore")
	fs.StringVar(&f.caseName, "case", "duplicate", "the cases, comma-separated, or all: "+caseNames()+
		"; a case that strikes at a point runs at every point A passes, or at one: lost-reply@after-commit, lost-reply@answer")
	fs.IntVar(&f.requests, "requests", 2, "how many requests of the key: 2, or 3 (then within --preemptions)")
	fs.IntVar(&f.preemptions, "preemptions", -1, "explore only the orders with at most N preemptions (default: every order of 2 requests, 2 for 3)")
	fs.DurationVar(&f.bound, "bound", 0, "how long a released request may take to reach its next point before it is taken to wait on another (0: measured)")
	fs.StringVar(&f.order, "order", "", "replay this one order (as printed: AABAB...) --repeat times")
	fs.IntVar(&f.repeat, "repeat", 3, "with --order: how many times to run it")
	fs.IntVar(&f.recheck, "recheck", defaultRecheck, "the determinism check: how many holding orders to run again (every failing one is)")
	fs.IntVar(&f.workers, "workers", runtime.NumCPU(), "orders run side by side, each on a key of its own")
	fs.Uint64Var(&f.seed, "seed", 1, "root seed (the keys, the orders the determinism check picks)")
}

func caseNames() string {
	s := ""
	for i, k := range explore.Kinds() {
		if i > 0 {
			s += ", "
		}
		s += k.Name + " (" + k.Doc + ")"
	}
	return s
}

// defaultRecheck is how many holding orders the determinism check runs
// again, unless explore's --recheck says otherwise.
const defaultRecheck = 10

// parseCases reads case names as explore's --case does: each a case, or
// all (every kind); on an error, the index of the name at fault.
func parseCases(names []string) ([]explore.Case, int, error) {
	var out []explore.Case
	for i, n := range names {
		n = strings.TrimSpace(n)
		if n == "all" {
			for _, k := range explore.KindNames() {
				c, _ := explore.ParseCase(k)
				out = append(out, c)
			}
			continue
		}
		c, err := explore.ParseCase(n)
		if err != nil {
			return nil, i, err
		}
		out = append(out, c)
	}
	return out, 0, nil
}

// cases reads --case: names, comma-separated, or all.
func (f exploreFlags) cases() ([]explore.Case, error) {
	cases, _, err := parseCases(strings.Split(f.caseName, ","))
	if err != nil {
		return nil, usageErrorf("--case: %v", err)
	}
	return cases, nil
}

// spec checks the flags and turns them into an exploration.
func (f exploreFlags) spec() (engine.ExploreSpec, error) {
	var spec engine.ExploreSpec
	cases, err := f.cases()
	if err != nil {
		return spec, err
	}
	if f.order != "" && (len(cases) != 1 || cases[0].At == explore.Every) {
		return spec, usageErrorf("--order replays one order of one case: give --case with one case (and its point: lost-reply@after-commit)")
	}
	if f.requests < 2 || f.requests > explore.MaxRequests {
		return spec, usageErrorf("--requests %d: want 2 or 3", f.requests)
	}
	pre := f.preemptions
	if pre < 0 && f.requests > 2 {
		pre = 2
	}
	switch {
	case f.workers < 1 || f.workers > 64:
		return spec, usageErrorf("--workers %d: want 1 to 64", f.workers)
	case f.repeat < 1 || f.repeat > 100:
		return spec, usageErrorf("--repeat %d: want 1 to 100", f.repeat)
	case f.recheck < 0:
		return spec, usageErrorf("--recheck %d: want 0 or more", f.recheck)
	case f.bound < 0 || f.bound > time.Minute:
		return spec, usageErrorf("--bound %s: want 0 (measured) to 1m", f.bound)
	}
	spec = engine.ExploreSpec{Cases: cases, Requests: f.requests, Preemptions: pre, Bound: f.bound, Repeat: f.repeat,
		Recheck: f.recheck, Workers: f.workers, Seed: f.seed}
	if f.order != "" {
		if spec.Order, err = explore.ParseOrder(f.order, f.requests); err != nil {
			return spec, usageErrorf("--order: %v", err)
		}
	}
	return spec, nil
}

func cmdExplore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	var c common
	c.registerStoreURLs(fs)
	fs.StringVar(&c.mysqlURL, "mysql-url", "", "use this MySQL or MariaDB for the InnoDB strategies (mysql://...)")
	fs.StringVar(&c.profile, "profile", "ietf", "contract profile the target promises")
	fs.StringVar(&c.jsonFile, "json", "", "write the exploration's canonical document (every order's records) to FILE (- for stdout)")
	fs.StringVar(&c.out, "out", "", "save the exploration in this new run directory (idemchaos check DIR judges it again)")
	c.registerShard(fs, "explore every Nth case")
	htmlFile := fs.String("html", "", "write the exploration as one self-contained HTML page to FILE (- for stdout), a section and a lattice per case")
	c.registerQuiet(fs)
	c.term.register(fs)
	var f exploreFlags
	f.register(fs)
	var t targetFlags
	t.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := c.parseShard(); err != nil {
		return err
	}
	profile, err := profileFlag(c.profile)
	if err != nil {
		return err
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}
	if c.shard.Set() && spec.Order != nil {
		return usageErrorf("--shard splits the cases of an exploration; --order replays one order of one case: give one")
	}
	files := exploreFiles{json: c.jsonFile, html: *htmlFile}
	if err := files.check(); err != nil {
		return err
	}
	spec.Profile, spec.Shard = profile, c.shard
	view, err := c.view(stdout)
	if err != nil {
		return err
	}
	log := c.log(stderr)
	var name string
	var run func(ctx context.Context) ([]explore.Result, error)
	switch {
	case t.set() && f.strategy != "":
		return usageErrorf("--strategy and --target-url: give one (a built-in strategy, or your own service)")
	case t.set():
		if err := prepareOut(c.out, 0); err != nil {
			return err
		}
		svc, e, err := exploreService(ctx, t, log)
		if err != nil {
			return err
		}
		defer svc.Close()
		name, run = e.Args(), func(ctx context.Context) ([]explore.Result, error) { return svc.Explore(ctx, spec) }
	default:
		if err := t.stray(); err != nil {
			return err
		}
		if err := requireName("strategy", f.strategy, design.Names()); err != nil {
			return err
		}
		if err := prepareOut(c.out, 0); err != nil {
			return err
		}
		s, err := open(ctx, c, 1, log, f.strategy)
		if err != nil {
			return err
		}
		defer s.Close()
		name, run = "--strategy "+f.strategy, func(ctx context.Context) ([]explore.Result, error) {
			return s.Builtins[0].Explore(ctx, f.strategy, spec)
		}
	}
	spec.Progress = func(c explore.Case, n int) {
		if n%100 == 0 {
			fmt.Fprintf(log, "explore, %s: %d orders run\n", c.Name(), n)
		}
	}
	var planned []string
	spec.Planned = func(cases []explore.Case) {
		for _, c := range cases {
			planned = append(planned, c.Name())
		}
	}
	started := time.Now()
	res, err := run(ctx)
	if err != nil {
		return envError(err)
	}
	for i := range res {
		res[i].Args = name
	}
	doc := results.NewExploreDocument(res, profile.Name, f.seed, started)
	if c.shard.Set() {
		doc.Shard = scenarios.ExploreShard(c.shard, name, planned, f.settings(profile))
	}
	if err := saveRun(c.out, doc); err != nil {
		return envError(err)
	}
	if err := files.write(stdout, doc); err != nil {
		return err
	}
	if !files.toStdout() {
		if err := reports.WriteExplorations(stdout, res, view); err != nil {
			return err
		}
		if err := exploreShardSummary(stdout, doc.Shard, len(res)); err != nil {
			return err
		}
	}
	announceExplored(stderr, c.out)
	return verdictExit(exploreExit(res))
}

// exploreService opens the user's service for explore: it must speak the
// failpoint protocol.
func exploreService(ctx context.Context, t targetFlags, log io.Writer) (*engine.Service, scenarios.External, error) {
	e, _, err := t.external()
	if err != nil {
		return nil, e, err
	}
	if !e.Failpoints {
		return nil, e, usageErrorf("explore holds your service's requests at its failpoints: give --failpoints (docs/failpoints.md)")
	}
	svc, err := openService(ctx, t, e, log)
	return svc, e, err
}
