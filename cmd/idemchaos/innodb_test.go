package main

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// TestMySQLOnlyForInnoDB: a session provisions a MySQL-family server only
// for a strategy on InnoDB. With --mysql-url naming a port nothing listens
// on, a run of a Postgres strategy passes without reaching it (its stores
// line names no mysql), while a run of innodb-tx fails to reach it: an
// environment error, exit 3.
func TestMySQLOnlyForInnoDB(t *testing.T) {
	nowhere := "mysql://root@127.0.0.1:1/idemchaos"
	if cfg := (common{mysqlURL: nowhere}).stores("pg-tx", "redis-setnx"); cfg.MySQL || cfg.MySQLURL != "" {
		t.Errorf("Postgres strategies ask for MySQL: %+v", cfg)
	}
	if cfg := (common{mysqlURL: nowhere}).stores("pg-tx", "innodb-tx"); !cfg.MySQL || cfg.MySQLURL != nowhere {
		t.Errorf("innodb-tx does not ask for the given MySQL: %+v", cfg)
	}
	o := cliEnv(t, storesEnv(), "run", "--strategy", "pg-tx", "--scenario", "missing-key", "--mysql-url", nowhere)
	if o.code != exitPass || strings.Contains(o.stderr, "mysql") {
		t.Errorf("pg-tx with an unreachable --mysql-url: exit %d, stderr %s", o.code, o.stderr)
	}
	o = cliEnv(t, storesEnv(), "run", "--strategy", "innodb-tx", "--scenario", "missing-key", "--mysql-url", nowhere)
	if o.code != exitEnv {
		t.Errorf("innodb-tx with an unreachable --mysql-url: exit %d, stderr %s", o.code, o.stderr)
	}
}

// TestMatrixSaysWhatItSkips: a matrix of an InnoDB strategy moves out its
// cell of the replicated Postgres, counts it, and says why on one line.
func TestMatrixSaysWhatItSkips(t *testing.T) {
	nowhere := []string{"IDEMCHAOS_REDIS_URL=redis://127.0.0.1:1/0", "IDEMCHAOS_POSTGRES_URL=postgres://u@127.0.0.1:1/db"}
	o := cliEnv(t, nowhere, "matrix", "--strategies", "innodb-tx,pg-tx", "--scenarios", "pg-standby-lag,missing-key", "--dry-run")
	want := "dry run: matrix would run 3 cells (2 strategies x 2 scenarios x 1 seed), 1 cell skipped; nothing was started"
	if o.code != exitPass || strings.TrimSpace(o.stdout) != want ||
		strings.TrimSpace(o.stderr) != "skipped innodb-tx / pg-standby-lag: "+scenarios.SkipOnInnoDB {
		t.Errorf("exit %d\nstdout %q\nwant   %q\nstderr %q", o.code, o.stdout, want, o.stderr)
	}
}
