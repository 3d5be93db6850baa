package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const exampleScenario = "../../examples/retry-burst.yaml"

func TestScenarioFileCatchesAndPasses(t *testing.T) {
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
