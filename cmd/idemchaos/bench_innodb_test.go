package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// TestBenchInnoDBTx: bench of innodb-tx beside pg-tx starts a MariaDB for
// it (the shared stores have none), deploys it there and checks what the
// load did against the InnoDB ledger: every request sent and answered,
// replays from InnoDB, no anomaly.
func TestBenchInnoDBTx(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bench.json")
	o := cli(t, "bench", "--verbose", "--strategies", "innodb-tx,pg-tx", "--duration", "2s", "--rate", "100", "--json", file)
	if o.code != exitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, ", mysql (") {
		t.Errorf("the stores line names no MariaDB:\n%s", o.stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc results.Bench
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 2 || doc.Results[0].Strategy != innodb.Tx.Name || doc.Results[0].ReplayFrom != innodb.ReplayInnoDB {
		t.Fatalf("results: %+v", doc.Results)
	}
	for _, r := range doc.Results {
		checkBenchResult(t, r)
	}
	if !strings.Contains(o.stdout, innodb.Tx.Name) {
		t.Errorf("the table lacks innodb-tx:\n%s", o.stdout)
	}
}

// TestBenchInnoDBWithoutMariaDB: a strategy on InnoDB asked for, with a
// MariaDB that does not answer, is one line and exit 3; a bench of
// Postgres strategies does not reach for it.
func TestBenchInnoDBWithoutMariaDB(t *testing.T) {
	nowhere := "mysql://root@127.0.0.1:1/idemchaos"
	o := cli(t, "bench", "--strategies", "pg-tx,innodb-tx", "--duration", "1s", "--mysql-url", nowhere)
	lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
	last := lines[len(lines)-1]
	if o.code != exitEnv || !strings.HasPrefix(last, "idemchaos: bench innodb-tx: ") || !strings.Contains(last, "unreachable") {
		t.Errorf("exit %d, stderr %q; want exit 3 and a line naming innodb-tx and the unreachable MariaDB", o.code, o.stderr)
	}
	for _, args := range [][]string{{"--strategies", "innodb-tx"}, {}} { // the default list too: that MariaDB was asked for
		o = cliEnv(t, append(storesEnv(), "IDEMCHAOS_MYSQL_URL="+nowhere), append([]string{"bench", "--duration", "1s"}, args...)...)
		if o.code != exitEnv || !strings.Contains(lastLine(o.stderr), "unreachable") {
			t.Errorf("bench %v with IDEMCHAOS_MYSQL_URL unreachable: exit %d, stderr %q", args, o.code, o.stderr)
		}
	}
	o = cli(t, "bench", "--strategies", "memory", "--concurrency", "1", "--duration", "200ms", "--mysql-url", nowhere)
	if o.code != exitPass || strings.Contains(o.stderr, "mysql") {
		t.Errorf("memory with an unreachable --mysql-url: exit %d, stderr %s", o.code, o.stderr)
	}
}

// TestBenchDefaultStrategies: bench's default list is every strategy, the
// InnoDB ones included, and not named (so a MariaDB for them is optional).
func TestBenchDefaultStrategies(t *testing.T) {
	o, err := parseBench(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.named || !slices.Contains(o.strategies, innodb.Tx.Name) || !slices.Contains(o.strategies, "pg-tx") {
		t.Errorf("default strategies %v (named %v)", o.strategies, o.named)
	}
	if o, _ := parseBench([]string{"--strategies", "innodb-tx"}); !o.named {
		t.Error("--strategies innodb-tx is not named")
	}
}

// TestOpenBenchLeavesOutWhatNeedsMariaDB: when no MariaDB can be had
// (here: the opener says so for any list with a strategy on InnoDB, and
// opens the shared stores for the others), an optional bench goes on with
// the rest and says what it left out and why, in one line; a required one
// is exit 3, one line naming the strategies.
func TestOpenBenchLeavesOutWhatNeedsMariaDB(t *testing.T) {
	ctx := context.Background()
	var asked [][]string
	shared := cliOpener(common{redisURL: services.RedisURL, postgresURL: services.PostgresURL}, io.Discard)
	noMariaDB := func(ctx context.Context, strategies ...string) (*engine.Session, error) {
		asked = append(asked, strategies)
		if engine.NeedsMySQL(strategies...) {
			return nil, envError(&provision.UnavailableError{Service: "mysql", Hint: "sudo apt-get install -y mariadb-server",
				Err: fmt.Errorf("no Docker engine, no mariadbd found")})
		}
		return shared(ctx, strategies...)
	}
	var log bytes.Buffer
	s, ok, err := openBench(ctx, noMariaDB, []string{"pg-tx", "innodb-tx"}, true, "the strategies on InnoDB are", &log)
	if err != nil || ok {
		t.Fatalf("optional: ok %v, %v", ok, err)
	}
	s.close()
	want := "bench: no MariaDB could be had (no mysql available: no Docker engine, no mariadbd found; install with: " +
		"sudo apt-get install -y mariadb-server): the strategies on InnoDB are left out\n"
	if log.String() != want || len(asked) != 2 || !slices.Equal(asked[1], []string{"pg-tx"}) {
		t.Errorf("log %q, asked %v", log.String(), asked)
	}
	log.Reset()
	_, _, err = openBench(ctx, noMariaDB, []string{"pg-tx", "innodb-tx"}, false, "", &log)
	if code := report(ctx, err, &log); code != exitEnv || strings.Count(log.String(), "\n") != 1 ||
		!strings.HasPrefix(log.String(), "idemchaos: bench innodb-tx: no mysql available") {
		t.Errorf("required: exit %d, %q", code, log.String())
	}
}
