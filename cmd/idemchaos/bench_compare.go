package main

import (
	"context"
	"fmt"
	"go/build"
	"io"
	"os"
	"path/filepath"

	"github.com/idemchaos/idemchaos/engine/compare"
	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// compareConfig is the comparison the bench flags ask for.
func compareConfig(o benchOptions) compare.Config {
	return compare.Config{Rounds: o.rounds, Duration: o.load.Duration, Concurrency: o.load.Workers, Rate: o.load.Rate,
		DupRatio: o.load.DupRatio, Seed: o.load.Seed, Timeout: o.timeout, Profile: o.profile}
}

// checkCompare refuses what --compare cannot do.
func checkCompare(o benchOptions, set map[string]bool) error {
	for _, f := range []string{"strategies", "serve", "html", "markdown", "keepalive", "count", "inflight", "accounts"} {
		if set[f] {
			return usageErrorf("bench: --compare measures its own strategies and outputs; --%s does not apply", f)
		}
	}
	if err := compareConfig(o).Validate(); err != nil {
		return usageErrorf("bench: %v", err)
	}
	return checkFiles(o.files, "")
}

// cmdCompare runs bench --compare: the stores once, two databases (the
// targets' and pgbench's), the tools found on PATH (pgbench also where the
// Postgres binaries are); and, for innodb-tx, a MariaDB with two databases
// (the targets' and mysqlslap's), left out with a line saying so when none
// can be had.
func cmdCompare(ctx context.Context, o benchOptions, stdout, stderr io.Writer) error {
	c := compareConfig(o)
	var err error
	if c.Pgbench, err = findTool("pgbench", pgbenchDirs()); err != nil {
		return err
	}
	if c.Wrk, err = findTool("wrk", nil); err != nil {
		return err
	}
	c.Vegeta = vegetaPath(o.log(stderr))
	c.Mysqlslap = mysqlslapPath(o.log(stderr))
	if c.Dir, err = os.MkdirTemp("", "idemchaos-compare-*"); err != nil {
		return envError(err)
	}
	defer os.RemoveAll(c.Dir)
	c.Env = os.Environ()
	s, mysql, err := openBench(ctx, cliOpener(o.common, stderr), []string{innodb.Tx.Name}, mysqlOptional(o.common, false),
		"innodb-tx's measurements (mysqlslap, wrk and idemchaos on it) are", o.log(stderr))
	if err != nil {
		return err
	}
	defer s.close()
	st, err := compareStores(ctx, s, mysql, c.Mysqlslap != "")
	if err != nil {
		return err
	}
	rep, err := compare.Run(ctx, c, st, o.log(stderr))
	if err != nil {
		return envError(err)
	}
	return writeCompare(o.files.json, rep, stdout)
}

// compareStores makes the comparison's databases: the targets' and
// pgbench's on Postgres; with a MariaDB, the InnoDB targets' and, when
// mysqlslap is there, its own.
func compareStores(ctx context.Context, s *benchStores, mysql, slap bool) (compare.Stores, error) {
	st := compare.Stores{RedisURL: s.Services.RedisURL, Groups: s.Services.ProcessGroups()}
	var err error
	if st.BenchDSN, err = s.NewDatabase(ctx); err != nil {
		return st, envError(err)
	}
	if st.PgbenchDSN, err = s.NewDatabase(ctx); err != nil {
		return st, envError(err)
	}
	if !mysql {
		return st, nil
	}
	if st.MySQLURL, err = s.newMySQLDatabase(ctx); err != nil || !slap {
		return st, err
	}
	st.SlapURL, err = s.newMySQLDatabase(ctx)
	return st, err
}

// writeCompare writes the tables (unless the JSON goes to stdout) and the JSON.
func writeCompare(jsonFile string, rep results.Comparison, stdout io.Writer) error {
	if jsonFile != "-" {
		if err := reports.WriteComparison(stdout, rep); err != nil {
			return err
		}
	}
	switch jsonFile {
	case "":
		return nil
	case "-":
		return results.WriteComparisonJSON(stdout, rep)
	}
	f, err := os.Create(jsonFile)
	if err != nil {
		return usageErrorf("--json: %v", err)
	}
	if err := results.WriteComparisonJSON(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", jsonFile, err)
	}
	return f.Close()
}

// findTool finds a load tool on PATH or in one of dirs.
func findTool(name string, dirs []string) (string, error) {
	p, err := compare.FindTool(name, dirs)
	if err != nil {
		return "", envError(err)
	}
	return p, nil
}

// vegetaPath is vegeta's path, "" when it is not installed: the
// comparison then leaves its measurement out, and says so.
func vegetaPath(log io.Writer) string {
	p, err := findTool("vegeta", goBinDirs())
	if err != nil {
		fmt.Fprintln(log, "bench --compare: vegeta not found on PATH or in Go's bin directory (scripts/setup installs it): its measurement is left out")
		return ""
	}
	return p
}

// mysqlslapPath is MariaDB's mysqlslap (mariadb-slap, else mysqlslap),
// "" when it is not installed: the comparison then leaves its measurement
// out, and says so.
func mysqlslapPath(log io.Writer) string {
	for _, name := range []string{"mariadb-slap", "mysqlslap"} {
		if p, err := compare.FindTool(name, nil); err == nil {
			return p
		}
	}
	fmt.Fprintln(log, "bench --compare: mysqlslap not found on PATH (Debian: apt-get install mariadb-client; scripts/setup installs it): its measurement is left out")
	return ""
}

// goBinDirs are where go install puts a binary: GOBIN, else each GOPATH's bin.
func goBinDirs() []string {
	if d := os.Getenv("GOBIN"); d != "" {
		return []string{d}
	}
	var dirs []string
	for _, d := range filepath.SplitList(build.Default.GOPATH) {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	return dirs
}

// pgbenchDirs are where the Postgres binaries may be besides PATH.
func pgbenchDirs() []string {
	dirs := []string{}
	if d := os.Getenv("PG_BINDIR"); d != "" {
		dirs = append(dirs, d)
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	return append(dirs, found...)
}
