package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/engine/compare"
	"github.com/idemchaos/idemchaos/results"
)

// TestBenchCompareRuns: the short form of bench --compare (one round of a
// second per measurement) runs pgbench, wrk, vegeta (scripts/setup installs
// it: here it must be there) and idemchaos's own models on the same stores,
// and innodb-tx beside pg-tx on a MariaDB it starts for them (mysqlslap on
// its SQL, wrk and idemchaos's closed model on its endpoint), and states
// every ratio from them. It checks that the comparison runs, not how fast
// anything is.
func TestBenchCompareRuns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "compare.json")
	o := cli(t, "bench", "--compare", "--rounds", "1", "--duration", "1s", "--json", file)
	if o.code != exitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep results.Comparison
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kind != results.ComparisonKind || rep.Rounds != 1 || rep.Concurrency != 16 {
		t.Fatalf("header: kind %q, %d rounds, %d senders", rep.Kind, rep.Rounds, rep.Concurrency)
	}
	if len(rep.Measurements) != 13 {
		t.Fatalf("%d measurements, want 13 (vegeta's and the MySQL ones among them: scripts/setup installs them)\nstderr:\n%s",
			len(rep.Measurements), o.stderr)
	}
	names := map[string]bool{}
	for _, m := range rep.Measurements {
		names[m.Name] = true
		if len(m.Values) != 1 || m.Values[0] <= 0 {
			t.Errorf("%s: values %v, want one positive figure", m.Name, m.Values)
		}
		checkCPU(t, m)
	}
	for _, want := range []string{compare.MeasureSlapInnoTx, compare.MeasureWrkInnoTx, compare.MeasureKeepAliveInnoTx, compare.MeasurePgbench} {
		if !names[want] {
			t.Errorf("no measurement %q among %v", want, names)
		}
	}
	if len(rep.Ratios) != 12 {
		t.Fatalf("%d ratios, want 12", len(rep.Ratios))
	}
	ratios := map[string]bool{}
	for _, r := range rep.Ratios {
		ratios[r.Name] = true
	}
	for _, want := range []string{"innodb-tx / pg-tx, the SQL (mysqlslap / pgbench)", "innodb-tx / pg-tx (wrk, closed)",
		"wrk innodb-tx / mysqlslap on the same SQL", "idemchaos keep-alive / wrk, innodb-tx", "wrk pg-tx / pgbench on the same SQL"} {
		if !ratios[want] {
			t.Errorf("no ratio %q", want)
		}
	}
	for _, r := range rep.Ratios {
		if len(r.Values) != 1 || r.Median <= 0 {
			t.Errorf("%s: %v", r.Name, r.Values)
		}
		if !strings.Contains(o.stdout, r.Name) {
			t.Errorf("the table lacks %q:\n%s", r.Name, o.stdout)
		}
	}
	if n := strings.Count(o.stderr, "round 1/1"); n != 13 {
		t.Errorf("%d progress lines, want one per measurement:\n%s", n, o.stderr)
	}
}

// checkCPU: every measurement on the stores idemchaos started has the CPU
// time per request of its SQL store (Postgres, or MariaDB for innodb-tx)
// and of this process, and a load tool's own where one drove it; the
// total is the sum of the parts.
func checkCPU(t *testing.T, m results.Series) {
	t.Helper()
	cpu := map[string]float64{}
	sum := 0.0
	for _, c := range m.CPU {
		cpu[c.Name] = c.Median
		if c.Name != compare.PartTotal {
			sum += c.Median
		}
	}
	tool := strings.HasPrefix(m.Name, "wrk") || strings.HasPrefix(m.Name, "pgbench") || strings.HasPrefix(m.Name, "vegeta") ||
		strings.HasPrefix(m.Name, "mysqlslap")
	store := compare.PartPostgres
	if strings.Contains(m.Name, "innodb-tx") {
		store = compare.PartMySQL
	}
	if cpu[store] <= 0 || (tool && cpu[compare.PartTool] <= 0) || (!tool && cpu[compare.PartIdemchaos] <= 0) {
		t.Errorf("%s: CPU per request %v; want %s's, and the tool's or idemchaos's", m.Name, cpu, store)
	}
	if m.Busy == nil || m.Busy.Median <= 0 || m.Busy.Median > 1 {
		t.Errorf("%s: machine busy %+v, want a share in (0, 1]", m.Name, m.Busy)
	}
	if d := sum - cpu[compare.PartTotal]; d > 1 || d < -1 {
		t.Errorf("%s: parts sum to %.1f, total %.1f", m.Name, sum, cpu[compare.PartTotal])
	}
}

func TestBenchCompareBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--compare", "--rounds", "0"},
		{"--compare", "--strategies", "pg-tx"},
		{"--compare", "--duration", "500ms"},
		{"--compare", "--html", "x.html"},
	} {
		o := cli(t, append([]string{"bench"}, args...)...)
		if o.code != exitUsage || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("bench %v: exit %d, stderr %q; want %d and one line", args, o.code, o.stderr, exitUsage)
		}
	}
}
