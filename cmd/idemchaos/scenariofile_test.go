package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const exampleScenario = "../../examples/retry-burst.yaml"

func TestScenarioFileCatchesAndPasses(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	o := cli(t, "run", "--strategy", "redis-getset", "--scenario-file", exampleScenario, "--seed", "2", "--out", dir)
	if o.code != exitViolated || !strings.Contains(o.stdout, "double_charge") {
		t.Fatalf("redis-getset: exit %d, want 1 with a double charge\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, "--scenario-file "+exampleScenario+" --seed 2") {
		t.Errorf("the repro line does not name the file:\n%s", o.stdout)
	}
	if c := cli(t, "check", dir); c.code != exitViolated || !strings.Contains(c.stdout+c.stderr, "0 differ") {
		t.Errorf("check of the saved run: exit %d (want 1, the same verdict, judged without the file)\n%s\n%s", c.code, c.stdout, c.stderr)
	}
	if o := cli(t, "run", "--strategy", "pg-tx", "--scenario-file", exampleScenario, "--seed", "2"); o.code != exitPass {
		t.Fatalf("pg-tx: exit %d, want 0\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

func TestBadScenarioFileExit2(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"name: x\ntrafic:\n  keys: 3\n":                             "trafic: unknown field",
		"name: x\ntraffic:\n  keys: many\n":                         "traffic.keys",
		"name: x\nretries:\n  backoff: 1s\n  max_backoff: 10ms\n":   "retries",
		"name: x\nfaults:\n  - kind: drop-response\n    share: 2\n": "faults[0].share",
		"name: [\n": "line",
	}
	i := 0
	for body, want := range cases {
		i++
		path := filepath.Join(dir, "bad"+string(rune('a'+i))+".yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		o := cliEnv(t, nil, "run", "--strategy", "pg-tx", "--scenario-file", path)
		if o.code != exitUsage || !strings.Contains(o.stderr, want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, one line naming %q", body, o.code, o.stderr, want)
		}
	}
	if o := cliEnv(t, nil, "run", "--strategy", "pg-tx", "--scenario", "missing-key", "--scenario-file", exampleScenario); o.code != exitUsage {
		t.Errorf("both --scenario and --scenario-file: exit %d, want 2", o.code)
	}
}

func TestProfileFile(t *testing.T) {
	o := cli(t, "run", "--strategy", "pg-tx", "--scenario", "missing-key", "--profile", "../../examples/profile-custom.yaml", "--json", "-")
	if o.code != exitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte("name: mine\nin_flight: 503\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = cliEnv(t, nil, "run", "--strategy", "pg-tx", "--scenario", "missing-key", "--profile", path)
	if o.code != exitUsage || !strings.Contains(o.stderr, "in_flight") {
		t.Errorf("bad profile: exit %d, stderr %q; want 2 naming in_flight", o.code, o.stderr)
	}
	if o := cliEnv(t, nil, "run", "--strategy", "pg-tx", "--scenario", "missing-key", "--profile", "nope"); o.code != exitUsage {
		t.Errorf("unknown profile name: exit %d, want 2", o.code)
	}
}

// TestProfileFileStatusSetBuiltIn: under a profile file whose in-flight
// set starts with 425, a built-in strategy answers a duplicate in flight
// 425 (the first of the set), the client retries it, and pg-tx passes
// concurrent-duplicates and forced-race, its gate forced through the
// failpoints.
func TestProfileFileStatusSetBuiltIn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "early.yaml")
	if err := os.WriteFile(path, []byte("name: early\nin_flight: [425, 409]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{"concurrent-duplicates", "forced-race"} {
		out := filepath.Join(t.TempDir(), "run")
		o := cli(t, "run", "--quiet", "--strategy", "pg-tx", "--scenario", sc, "--seed", "1", "--profile", path, "--out", out)
		if o.code != exitPass {
			t.Errorf("%s: exit %d, want 0\n%s\n%s", sc, o.code, o.stdout, o.stderr)
			continue
		}
		_, h := savedCellOf(t, out, "pg-tx", sc, 1)
		early, retried := 0, 0
		for _, a := range h.Attempts {
			switch {
			case a.Status == 409:
				t.Errorf("%s: attempt %s got 409; pg-tx answers the set's first, 425", sc, a.ID)
			case a.Status == 425:
				early++
				for _, b := range h.Attempts {
					if b.Op == a.Op && b.Try == a.Try+1 {
						retried++
					}
				}
			}
		}
		t.Logf("%s: %d of %d attempts got 425, %d of them retried", sc, early, len(h.Attempts), retried)
		if early == 0 || retried == 0 {
			t.Errorf("%s: %d attempts got 425, %d retried: the set was not exercised", sc, early, retried)
		}
	}
}

// TestProfileFileStatusSetsRejected: a profile file whose status set is
// empty, holds a word or a status outside 4xx, or gives one twice is one
// line naming the field (and the item), exit 2, for run as for lint.
func TestProfileFileStatusSetsRejected(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	for body, want := range map[string]string{
		"name: mine\nin_flight: []\n":           "in_flight: want at least one 4xx status, got an empty list (line 2)",
		"name: mine\nin_flight: [409, soon]\n":  `in_flight[1]: want a 4xx status, got "soon" (line 2)`,
		"name: mine\nmismatch: [422, 600]\n":    "mismatch: 600 is not a 4xx status",
		"name: mine\nmismatch: [99]\n":          "mismatch: 99 is not a 4xx status",
		"name: mine\nin_flight: [409, 409]\n":   "in_flight: 409 is given twice",
		"name: mine\nmismatch: {status: 422}\n": "mismatch: want a 4xx status or a list of them, got a mapping (line 2)",
	} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		line := "--profile: profile file " + path + ": " + want
		for _, args := range [][]string{{"lint", "--openapi", paymentdSpec}, {"run", "--strategy", "pg-tx", "--scenario", "concurrent-duplicates"}} {
			o := cliEnv(t, nil, append(args, "--profile", path)...)
			if o.code != exitUsage || !strings.Contains(o.stderr, line) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
				t.Errorf("%s, %q: exit %d, stderr %q; want exit 2, one line with %q", args[0], body, o.code, o.stderr, line)
			}
		}
	}
}
