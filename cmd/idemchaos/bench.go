package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// maxAccounts bounds --accounts.
const maxAccounts = 1000

// benchOptions are the checked flags of bench.
type benchOptions struct {
	common
	profile    api.Profile
	strategies []string
	named      bool // --strategies was given: a MariaDB for those on InnoDB is required, not optional
	load       load.Config
	timeout    time.Duration
	keepAlive  bool
	serve      string
	files      benchFiles
	compare    bool
	rounds     int
}

// cmdBench measures each strategy's cost under an open-model load.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseBench(args)
	if err != nil {
		return err
	}
	if o.compare {
		return cmdCompare(ctx, o, stdout, stderr)
	}
	b, s, err := openBencher(ctx, &o, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	defer b.Close()
	if o.serve != "" {
		if err := b.Serve(ctx, o.serve, stdout); err != nil {
			return envError(err)
		}
		return nil
	}
	doc, err := b.RunAll(ctx, func(r results.BenchResult) { fmt.Fprintln(o.log(stderr), reports.BenchProgress(r)) })
	if err != nil {
		return envError(err)
	}
	return writeBench(o.files, doc, stdout)
}

// openBencher opens the stores the strategies need (a MariaDB only for
// those on InnoDB; --serve needs the first one's alone) and the Bencher
// on databases of its own. Without a MariaDB, the default list goes on
// without the strategies on InnoDB, saying so.
func openBencher(ctx context.Context, o *benchOptions, stderr io.Writer) (*engine.Bencher, *benchStores, error) {
	need := o.strategies
	if o.serve != "" {
		need = need[:1]
	}
	s, mysql, err := openBench(ctx, cliOpener(o.common, stderr), need, mysqlOptional(o.common, o.named),
		"the strategies on InnoDB are", o.log(stderr))
	if err != nil {
		return nil, nil, err
	}
	cfg := engine.BenchConfig{Strategies: o.strategies, Load: o.load, Timeout: o.timeout, KeepAlive: o.keepAlive, Profile: o.profile}
	if !mysql {
		cfg.Strategies = withoutInnoDB(o.strategies)
	}
	dsn, err := s.NewDatabase(ctx)
	if err == nil && mysql {
		cfg.MySQLURL, err = s.newMySQLDatabase(ctx)
	}
	if err != nil {
		s.close()
		return nil, nil, envError(err)
	}
	b, err := engine.NewBencher(ctx, cfg, dsn, s.Services.RedisURL)
	if err != nil {
		s.close()
		return nil, nil, envError(err)
	}
	return b, s, nil
}

func parseBench(args []string) (benchOptions, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var o benchOptions
	registerStores(fs, &o.common)
	sts := fs.String("strategies", "", "comma-separated strategies (default: all; none is the baseline). Those on InnoDB run on MariaDB (--mysql-url, else Docker, else a local MariaDB), started only for them; "+
		"without one, the default list leaves them out and says so, and naming one is an error (exit 3)")
	rate := fs.Float64("rate", 200, "open model: requests per second (at most 20000); latency counts from each request's intended send time")
	conc := fs.Int("concurrency", 0, "closed model instead of --rate: this many senders back to back (1 to 1024)")
	dur := fs.Duration("duration", 10*time.Second, "arrival window per strategy (at most 10m)")
	dup := fs.Float64("dup-ratio", 0.1, "share of requests that retry one of the last 16 keys with the same body (0 to 1)")
	count := fs.Int("count", 0, "at most this many requests per strategy (0: the limit, 1000000)")
	inflight := fs.Int("inflight", load.DefaultInflight, "open model: requests outstanding at once (1 to 4096); one waiting for a slot is late, and its latency shows it")
	accounts := fs.Int("accounts", load.DefaultAccounts, "accounts charged (1 to 1000)")
	timeout := fs.Duration("timeout", 2*time.Second, "per request (at most 1m)")
	seed := fs.Uint64("seed", 1, "seed of the keys, bodies and duplicates")
	keep := fs.Bool("keepalive", false, "reuse connections (default: one connection per request, as every idemchaos command)")
	serve := fs.String("serve", "", "no load: serve the first strategy's target on this loopback host:port for --duration (for wrk)")
	compare := fs.Bool("compare", false, "side by side: pgbench, wrk, vegeta (when installed) and idemchaos's closed and open models on the same stores, interleaved, and their ratios")
	rounds := fs.Int("rounds", 3, "--compare: interleaved rounds (1 to 20)")
	htmlFile := fs.String("html", "", "also write the report as one self-contained HTML page to FILE (- for stdout)")
	mdFile := fs.String("markdown", "", "also write the report as Markdown to FILE, e.g. $GITHUB_STEP_SUMMARY (- for stdout)")
	if err := parse(fs, args); err != nil {
		return o, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	if o.profile, err = o.common.check(); err != nil {
		return o, err
	}
	if o.strategies, err = splitList("strategies", *sts, design.Names()); err != nil {
		return o, err
	}
	o.named = set["strategies"]
	o.timeout, o.keepAlive, o.serve, o.compare, o.rounds = *timeout, *keep, *serve, *compare, *rounds
	o.files = benchFiles{json: o.jsonFile, html: *htmlFile, markdown: *mdFile}
	o.load = load.Config{Duration: *dur, DupRatio: *dup, Count: *count, Inflight: *inflight, Accounts: *accounts, Seed: *seed}
	if o.compare { // both models, at the flags' (or the defaults') figures
		o.load.Rate, o.load.Workers = *rate, *conc
		if !set["concurrency"] {
			o.load.Workers = 16
		}
		return o, checkCompare(o, set)
	}
	if set["concurrency"] {
		o.load.Workers = *conc
	} else {
		o.load.Rate = *rate
	}
	if err := checkBench(o, set); err != nil {
		return o, err
	}
	if err := o.load.Validate(); err != nil {
		return o, usageErrorf("bench: %v", err)
	}
	return o, nil
}

// registerStores registers the common flags that bench uses: the stores,
// the profile and --json (one replica, no run directory).
func registerStores(fs *flag.FlagSet, c *common) {
	fs.StringVar(&c.redisURL, "redis-url", os.Getenv("IDEMCHAOS_REDIS_URL"), "use this Redis (redis://host:port/db) instead of starting one")
	fs.StringVar(&c.postgresURL, "postgres-url", os.Getenv("IDEMCHAOS_POSTGRES_URL"), "use this Postgres (postgres://user@host:port/db, a role that may CREATE DATABASE)")
	fs.BoolVar(&c.noDocker, "no-docker", false, "never try a Docker engine; start local binaries")
	fs.StringVar(&c.mysqlURL, "mysql-url", os.Getenv("IDEMCHAOS_MYSQL_URL"), "use this MySQL or MariaDB for the InnoDB strategies (mysql://user:password@host:port/db, a user that may CREATE DATABASE) instead of starting one; given, it must answer (exit 3)")
	fs.StringVar(&c.profile, "profile", "ietf", "contract profile the target promises: "+strings.Join(api.ProfileNames(), ", "))
	fs.StringVar(&c.jsonFile, "json", "", "write the figures as JSON (kind bench, schema_version 1) to FILE (- for stdout)")
	c.registerQuiet(fs)
	c.replicas = 1
}

// checkBench refuses, with the flag's name, what the load would refuse.
func checkBench(o benchOptions, set map[string]bool) error {
	l := o.load
	switch {
	case set["rate"] && set["concurrency"]:
		return usageErrorf("bench: --rate (open model) and --concurrency (closed model) exclude each other")
	case !set["concurrency"] && !(l.Rate > 0 && l.Rate <= load.MaxRate):
		return usageErrorf("--rate %g: want more than 0 and at most %d requests per second", l.Rate, load.MaxRate)
	case set["concurrency"] && (l.Workers < 1 || l.Workers > load.MaxWorkers):
		return usageErrorf("--concurrency %d: want 1 to %d", l.Workers, load.MaxWorkers)
	case l.Duration <= 0 || l.Duration > load.MaxDuration:
		return usageErrorf("--duration %s: want more than 0 and at most %s", l.Duration, load.MaxDuration)
	case !(l.DupRatio >= 0 && l.DupRatio <= 1):
		return usageErrorf("--dup-ratio %g: want 0 to 1", l.DupRatio)
	case l.Count < 0 || l.Count > load.MaxCount:
		return usageErrorf("--count %d: want 0 (the limit) to %d", l.Count, load.MaxCount)
	case l.Inflight < 1 || l.Inflight > load.MaxInflight:
		return usageErrorf("--inflight %d: want 1 to %d", l.Inflight, load.MaxInflight)
	case l.Accounts < 1 || l.Accounts > maxAccounts:
		return usageErrorf("--accounts %d: want 1 to %d", l.Accounts, maxAccounts)
	case o.timeout <= 0 || o.timeout > time.Minute:
		return usageErrorf("--timeout %s: want more than 0 and at most 1m", o.timeout)
	}
	if err := checkLoopback(o.serve); err != nil {
		return err
	}
	return checkFiles(o.files, o.serve)
}

// checkFiles refuses, before a run, outputs that could not be written.
func checkFiles(f benchFiles, serve string) error {
	stdout, seen := 0, map[string]string{}
	for _, w := range f.writers() {
		switch {
		case w.path == "":
			continue
		case serve != "" && w.flag != "--json":
			return usageErrorf("bench: %s reports a run; --serve runs none", w.flag)
		case w.path == "-":
			stdout++
		case seen[w.path] != "":
			return usageErrorf("bench: %s and %s both write %s", seen[w.path], w.flag, w.path)
		default:
			seen[w.path] = w.flag
			if err := checkDir(w.flag, w.path); err != nil {
				return err
			}
		}
	}
	if stdout > 1 {
		return usageErrorf("bench: only one of --json, --html and --markdown may be - (stdout)")
	}
	return nil
}

// checkDir checks that the directory of path exists.
func checkDir(flagName, path string) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("%s %s: no directory %s", flagName, path, dir)
	}
	return nil
}

// checkLoopback accepts an empty address or a loopback host:port.
func checkLoopback(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("--serve %q: want host:port on loopback, e.g. 127.0.0.1:8080", addr)
	}
	if !scenarios.Loopback(host) {
		return usageErrorf("--serve %q: loopback only (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}
