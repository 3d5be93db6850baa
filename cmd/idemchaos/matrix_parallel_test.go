package main

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
)

func TestDefaultParallel(t *testing.T) {
	for cpus, want := range map[int]int{1: 3, 2: 6, 3: 8, 4: 8, 64: 8} {
		if got := defaultParallel(cpus); got != want {
			t.Errorf("%d CPUs: %d cells at once, want %d", cpus, got, want)
		}
	}
}

// TestMatrixParallelByDefault: without --parallel the matrix runs
// defaultParallel cells at once, and says so.
func TestMatrixParallelByDefault(t *testing.T) {
	o := cli(t, "matrix", "--strategies", "pg-tx,memory", "--scenarios", "missing-key,payload-mismatch,business-refusal,dropped-response", "--seeds", "1")
	want := fmt.Sprintf("%d cells at once", defaultParallel(runtime.NumCPU()))
	if o.code != 0 || !strings.Contains(o.stdout+o.stderr, want) {
		t.Fatalf("exit %d, want 0 and %q\nstdout:\n%s\nstderr:\n%s", o.code, want, o.stdout, o.stderr)
	}
}

func TestCellTime(t *testing.T) {
	rs := []scenarios.Result{{DurationMS: 3000}, {DurationMS: 5000}, {DurationMS: 2000}}
	got := cellTime(2*time.Second, rs, 4)
	if !strings.Contains(got, "sum to 10s") || !strings.Contains(got, "wall / sum 0.20") {
		t.Errorf("%q", got)
	}
}

// TestSkippedCellsAreNamedOnce: the skipped cells of one reason are named
// in one line: every strategy under every scenario when they are that,
// else each cell.
func TestSkippedCellsAreNamedOnce(t *testing.T) {
	const why = "needs the harness's replicated Postgres"
	var b strings.Builder
	tellSkippedCells(&b, reports.View{}, []results.Skip{
		{Strategy: "innodb-tx", Scenario: "pg-standby-lag", Reason: why}, {Strategy: "innodb-tx", Scenario: "pg-async-commit-crash", Reason: why},
		{Strategy: "innodb-get-lock", Scenario: "pg-standby-lag", Reason: why}, {Strategy: "innodb-get-lock", Scenario: "pg-async-commit-crash", Reason: why},
		{Strategy: "pg-tx", Scenario: "forced-race", Reason: "other"}, {Strategy: "memory", Scenario: "slow-charge", Reason: "other"},
	})
	want := "skipped innodb-tx, innodb-get-lock under pg-standby-lag and pg-async-commit-crash (4 cells): " + why + "\n" +
		"skipped pg-tx / forced-race, memory / slow-charge: other\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
