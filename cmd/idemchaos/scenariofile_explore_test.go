package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/history"
)

// exploreExample is the example scenario file that asks for an
// exploration.
const exploreExample = "../../examples/explore-duplicates.yaml"

// TestScenarioFileExploreChecked: a scenario file's explore section is
// read before anything runs: a dry run says what it would explore; a case
// that is none, a service without --failpoints and a matrix are refused
// in one line, exit 2.
func TestScenarioFileExploreChecked(t *testing.T) {
	nowhere := []string{"IDEMCHAOS_REDIS_URL=redis://127.0.0.1:1/0", "IDEMCHAOS_POSTGRES_URL=postgres://u@127.0.0.1:1/db"}
	o := cliEnv(t, nowhere, "run", "--strategy", "pg-tx", "--scenario-file", exploreExample, "--dry-run")
	if o.code != exitPass || !strings.Contains(o.stdout, "dry run: then explore every order of duplicate, mismatch (the scenario file's explore)") {
		t.Errorf("dry run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	data, err := os.ReadFile(exploreExample)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), "[duplicate, mismatch]", "[duplicate, dupe]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	service := []string{"--target-url", "http://127.0.0.1:1", "--ledger-url", "postgres://u@127.0.0.1:1/db", "--ledger-query",
		"SELECT idempotency_key, account, amount FROM charges"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--strategy", "pg-tx", "--scenario-file", bad}, `explore.cases[1]: unknown case "dupe"`},
		{[]string{"matrix", "--strategies", "pg-tx", "--scenario-file", exploreExample}, "a matrix does not"},
		{append([]string{"run", "--scenario-file", exploreExample}, service...), "give --failpoints"},
	} {
		o := cliEnv(t, nowhere, append(c.args, "--dry-run")...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) || strings.Count(o.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 on one line with %q", c.args, o.code, o.stderr, c.want)
		}
	}
}

// TestScenarioFileExplores: run --scenario-file with an explore section
// runs the scenario, then explores the strategy, reports both, and saves
// both in the run document; check DIR judges both again, and an
// exploration whose records were edited to a double charge fails it.
func TestScenarioFileExplores(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	o := cli(t, "run", "--strategy", "pg-tx", "--scenario-file", exploreExample, "--out", dir)
	doc := readExploreDoc(t, dir)
	cases := func(rs []explore.Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Case)
		}
		return out
	}
	if o.code != exitPass || !strings.Contains(o.stdout, "pg-tx, duplicate (2 requests, every order): ") ||
		!strings.Contains(o.stdout, "pg-tx, mismatch (2 requests, every order): ") || len(doc.Results) != 1 ||
		!slices.Equal(cases(doc.Explorations), []string{"duplicate", "mismatch"}) {
		t.Fatalf("run: exit %d, %d cells and cases %v saved\n%s\n%s", o.code, len(doc.Results), cases(doc.Explorations), o.stdout, o.stderr)
	}
	if c := cli(t, "check", dir); c.code != exitPass || !strings.Contains(c.stdout, explore.Summary(doc.Explorations)) {
		t.Errorf("check: exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}
	mis := &doc.Explorations[1]
	i := slices.IndexFunc(mis.Runs, func(r explore.Run) bool { return len(r.Reruns) == 0 })
	if i < 0 {
		t.Fatalf("every order of %s was run again", mis.Case)
	}
	run := &mis.Runs[i]
	b := run.Attempts[1]
	run.Ledger.Charges = append(run.Ledger.Charges, history.Charge{ID: "ch_edited", Key: b.Key, Account: b.Account, Amount: b.Amount,
		AttemptID: b.ID, Seq: int64(len(run.Ledger.Charges) + 1)})
	writeExploreDoc(t, dir, doc)
	if c := cli(t, "check", dir); c.code != exitViolated || !strings.Contains(c.stderr, "mismatch: saved pass") ||
		!strings.Contains(c.stderr, "0 differ from the saved verdicts") {
		t.Errorf("check of an edited exploration: exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}
}

// TestScenarioFileExploresService: against a service that speaks the
// failpoint protocol (paymentd --failpoints, pg-tx), the scenario file's
// exploration runs through the control endpoint after the scenario, is
// reported and saved with it, and check judges it again.
func TestScenarioFileExploresService(t *testing.T) {
	t.Parallel()
	p := startPaymentd(t, "pg-tx", "--failpoints")
	dir := filepath.Join(t.TempDir(), "run")
	o := runAgainst(t, p, "--failpoints", "--key-ttl", "24h", "--scenario-file", exploreExample, "--out", dir)
	t.Logf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	doc := readExploreDoc(t, dir)
	if o.code != exitPass || len(doc.Results) != 1 || len(doc.Explorations) != 2 || !strings.Contains(o.stdout, ", mismatch (2 requests, every order): ") ||
		!strings.Contains(doc.Explorations[0].Args, "--failpoints") {
		t.Fatalf("run: exit %d, %d cells and %d cases saved\n%s\n%s", o.code, len(doc.Results), len(doc.Explorations), o.stdout, o.stderr)
	}
	if c := cli(t, "check", dir); c.code != exitPass || !strings.Contains(c.stdout, explore.Summary(doc.Explorations)) {
		t.Errorf("check: exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}
}
