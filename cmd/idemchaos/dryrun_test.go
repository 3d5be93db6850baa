package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDryRun: --dry-run checks the whole command line, says what would
// run and exits 0 without starting anything: no store (none is reachable
// here), no --out directory, no --json file, no request to the service.
func TestDryRun(t *testing.T) {
	nowhere := []string{"IDEMCHAOS_REDIS_URL=redis://127.0.0.1:1/0", "IDEMCHAOS_POSTGRES_URL=postgres://u@127.0.0.1:1/db"}
	dir := t.TempDir()
	out, js := filepath.Join(dir, "run"), filepath.Join(dir, "run.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"matrix", "--seeds", "20", "--shard", "2/3", "--out", out, "--json", js},
			"dry run: matrix would run 2200 of the run's 6600 cells (shard 2/3; 20 strategies x 17 scenarios x 20 seeds), 200 cells skipped; nothing was started"},
		{[]string{"run", "--strategy", "pg-tx", "--scenario", "missing-key", "--out", out},
			"dry run: run would run 1 cell (1 strategy x 1 scenario x 1 seed); nothing was started"},
		{[]string{"matrix", "--target-url", "http://127.0.0.1:1", "--ledger-url", "postgres://u@127.0.0.1:1/db", "--ledger-query",
			"SELECT idempotency_key, account, amount FROM charges", "--scenarios", "concurrent-duplicates,missing-key,replica-fanout", "--out", out},
			"dry run: matrix would run 2 cells (1 service x 2 scenarios x 1 seed), 1 scenario skipped; nothing was started"},
		{[]string{"soak", "--seed", "4", "--strategies", "pg-tx", "--scenarios", "retry-storm", "--max-rounds", "3"},
			"dry run: soak would run rounds of 1 cell (1 strategy x 1 scenario) for 2m0s or 3 rounds; nothing was started"},
	} {
		o := cliEnv(t, nowhere, append(c.args, "--dry-run")...)
		if o.code != exitPass || strings.TrimSpace(o.stdout) != c.want {
			t.Errorf("%v --dry-run: exit %d\nstdout %q\nwant   %q\nstderr %s", c.args, o.code, o.stdout, c.want, o.stderr)
		}
		for _, p := range []string{out, js} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%v --dry-run wrote %s", c.args, p)
			}
		}
	}
	bad := [][]string{
		{"matrix", "--shard", "4/3"},
		{"matrix", "--scenarios", "no-such"},
		{"run", "--strategy", "pg-tx"},
		{"matrix", "--target-url", "http://127.0.0.1:1", "--ledger-query", "SELECT 1"}, // no ledger URL
		{"soak", "--duration", "0s"},
		{"run", "--strategy", "innodb-tx", "--scenario", "pg-standby-lag"}, // a replicated Postgres scenario, a strategy on InnoDB
	}
	for _, args := range bad {
		if o := cliEnv(t, nowhere, append(args, "--dry-run")...); o.code != exitUsage || strings.Count(o.stderr, "\n") != 1 {
			t.Errorf("%v --dry-run: exit %d, stderr %q; want exit 2 on one line", args, o.code, o.stderr)
		}
	}
}

// TestListMarkdownWritesTheCatalogDoc: the command docs/catalog.md names
// writes it, byte for byte.
func TestListMarkdownWritesTheCatalogDoc(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "catalog.md"))
	if err != nil {
		t.Fatal(err)
	}
	if o := cliEnv(t, nil, "list", "--markdown"); o.code != exitPass || o.stdout != string(want) {
		t.Errorf("list --markdown: exit %d, %d bytes; docs/catalog.md has %d (make docs regenerates it)\n%s", o.code, len(o.stdout), len(want), o.stderr)
	}
}
