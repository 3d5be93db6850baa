package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check/checkgen"
	"github.com/idemchaos/idemchaos/targets/api"
)

// savedLargeRun saves a run of one cell whose history has 5 attempts per
// key (checkgen: the shapes of a long soak, a few anomalies among them).
func savedLargeRun(tb testing.TB, keys int) string {
	tb.Helper()
	root := tb.TempDir()
	c, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: "redis-setnx", Scenario: "retry-storm", Seed: 1, Profile: api.IETF})
	if err != nil {
		tb.Fatal(err)
	}
	h, l := checkgen.Generate(keys, 1)
	rec := scenarios.Record{Cell: c, Plan: plan, Obs: scenarios.Observation{History: h, Ledger: l}, Took: time.Minute}
	dir := rundir.CellDir(root, c)
	if err := rundir.WritePlan(dir, c, plan); err != nil {
		tb.Fatal(err)
	}
	if err := rundir.WriteRecord(dir, rec, scenarios.Judge(rec)); err != nil {
		tb.Fatal(err)
	}
	return root
}

// TestCheckOfALargeSavedRun: check reads a saved cell of 100,000 attempts
// back and judges it as it was judged when saved (exit 1: the generated
// anomalies are not what retry-storm declares for redis-setnx).
func TestCheckOfALargeSavedRun(t *testing.T) {
	t.Parallel() // offline, on a run of its own: it overlaps tests that wait
	root := savedLargeRun(t, 20_000)
	o := cli(t, "check", root, "--json", filepath.Join(t.TempDir(), "re.json"))
	if o.code != exitViolated {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", o.code, exitViolated, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "re-checked 1 cells offline: 0 differ") {
		t.Errorf("stderr:\n%s", o.stderr)
	}
}

// BenchmarkCheckSavedMillion times idemchaos check (the binary: reading
// the run directory, judging, rendering) of a saved 1,000,000-attempt
// history.
func BenchmarkCheckSavedMillion(b *testing.B) {
	root := savedLargeRun(b, 200_000)
	for b.Loop() {
		o := cliEnv(b, nil, "check", root)
		if o.code != exitViolated {
			b.Fatalf("exit %d\n%s", o.code, o.stderr)
		}
	}
	b.ReportMetric(float64(1_000_000*b.N)/b.Elapsed().Seconds(), "attempts/s")
}
