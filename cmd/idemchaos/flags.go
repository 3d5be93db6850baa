package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/spec"
	"github.com/idemchaos/idemchaos/targets/api"
)

// common holds the flags every running command shares.
type common struct {
	redisURL    string
	postgresURL string
	mysqlURL    string
	noDocker    bool
	profile     string
	jsonFile    string
	replicas    int
	out         string
	shardText   string          // --shard, for the commands that register it
	shard       scenarios.Shard // --shard parsed by check; zero: the whole run
	quiet       bool            // --quiet: no progress, no provisioning lines
	verbose     bool            // --verbose: provisioning lines as they happen
	term        termFlags       // --wide, --color, for the commands that register them
	dryRun      bool            // --dry-run, for the commands that register it
}

func (c *common) register(fs *flag.FlagSet) {
	c.registerStoreURLs(fs)
	fs.StringVar(&c.mysqlURL, "mysql-url", os.Getenv("IDEMCHAOS_MYSQL_URL"), "use this MySQL or MariaDB for the InnoDB strategies (mysql://user:password@host:port/db, a user that may CREATE DATABASE) instead of starting one")
	fs.StringVar(&c.profile, "profile", "ietf", "contract profile the target promises: "+strings.Join(api.ProfileNames(), ", ")+", or a profile file (examples/profile-custom.yaml)")
	fs.StringVar(&c.jsonFile, "json", "", "write the canonical JSON results to FILE (- for stdout)")
	fs.IntVar(&c.replicas, "replicas", 1, "target replicas, each behind its own proxy")
	fs.StringVar(&c.out, "out", "", "save the run (plans, faults, histories, snapshots, results, the HTML report) in this new directory")
	c.registerQuiet(fs)
}

// registerStoreURLs adds where Redis and Postgres come from.
func (c *common) registerStoreURLs(fs *flag.FlagSet) {
	fs.StringVar(&c.redisURL, "redis-url", os.Getenv("IDEMCHAOS_REDIS_URL"), "use this Redis (redis://host:port/db) instead of starting one")
	fs.StringVar(&c.postgresURL, "postgres-url", os.Getenv("IDEMCHAOS_POSTGRES_URL"), "use this Postgres (postgres://user@host:port/db, a role that may CREATE DATABASE)")
	fs.BoolVar(&c.noDocker, "no-docker", false, "never try a Docker engine; start local binaries")
}

// registerQuiet adds --quiet and --verbose, for every command that
// provisions stores.
func (c *common) registerQuiet(fs *flag.FlagSet) {
	fs.BoolVar(&c.quiet, "quiet", false, "no progress display and no provisioning lines (errors and results still print)")
	fs.BoolVar(&c.verbose, "verbose", false, "say how the stores start as it happens (by default those lines show only when a store fails to start)")
}

// log is where progress talks: stderr, or nowhere when quiet.
func (c common) log(stderr io.Writer) io.Writer {
	if c.quiet {
		return io.Discard
	}
	return stderr
}

// view is how stdout shows this command's reports (--wide, --color,
// $COLUMNS), with every finding kept where --out or --json say.
func (c common) view(stdout io.Writer) (reports.View, error) {
	return c.term.view(stdout, keptIn(c))
}

// registerShard adds --shard (matrix, soak).
func (c *common) registerShard(fs *flag.FlagSet, what string) {
	fs.StringVar(&c.shardText, "shard", "", "run shard K of N (1/3, 2/3, 3/3): "+what+
		"; join the shards' --out directories with idemchaos merge")
}

func (c *common) check() (api.Profile, error) {
	if c.replicas < 1 || c.replicas > 16 {
		return api.Profile{}, usageErrorf("--replicas %d: want 1 to 16", c.replicas)
	}
	if err := c.parseShard(); err != nil {
		return api.Profile{}, err
	}
	return profileFlag(c.profile)
}

// parseShard reads --shard, when given, into shard.
func (c *common) parseShard() error {
	if c.shardText == "" {
		return nil
	}
	s, err := scenarios.ParseShard(c.shardText)
	if err != nil {
		return usageErrorf("--shard %v", err)
	}
	c.shard = s
	return nil
}

// profileFlag reads --profile: a built-in name, or a custom profile file.
func profileFlag(value string) (api.Profile, error) {
	p, err := api.ProfileByName(value)
	if err == nil {
		return p, nil
	}
	if !strings.ContainsAny(value, "/.") {
		return p, usageErrorf("--profile: %v, or a profile file", err)
	}
	if p, err = spec.LoadProfile(value); err != nil {
		return p, usageErrorf("--profile: %v", err)
	}
	p.File = value
	return p, nil
}

// parse parses args into fs; errors become usage errors, with no extra
// positional arguments allowed.
func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// splitList parses "a,b" against the known names; empty means all of them.
func splitList(flagName, value string, known []string) ([]string, error) {
	if strings.TrimSpace(value) == "" {
		return known, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range strings.Split(value, ",") {
		v = strings.TrimSpace(v)
		if !contains(known, v) {
			return nil, usageErrorf("--%s: unknown name %q (%sknown: %s)", flagName, v, didYouMean(v, known), strings.Join(known, ", "))
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func requireName(flagName, value string, known []string) error {
	if value == "" {
		return usageErrorf("--%s is required (one of: %s)", flagName, strings.Join(known, ", "))
	}
	if !contains(known, value) {
		return usageErrorf("--%s: unknown name %q (%sknown: %s)", flagName, value, didYouMean(value, known), strings.Join(known, ", "))
	}
	return nil
}

func seedList(first uint64, n int) ([]uint64, error) {
	if n < 1 || n > 10000 {
		return nil, usageErrorf("--seeds %d: want 1 to 10000", n)
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out, nil
}

func writeFileOrStdout(path string, stdout io.Writer, write func(io.Writer) error) error {
	return writeFlagFile("--json", path, stdout, write)
}

// writeFlagFile writes the file flagName names, or stdout for "-"; a file
// that cannot be created is the flag's usage error.
func writeFlagFile(flagName, path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return usageErrorf("%s: %v", flagName, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
