package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func TestUsageErrorsExit2WithOneLine(t *testing.T) {
	cases := [][]string{
		{},
		{"frobnicate"},
		{"run", "--scenario", "missing-key"},
		{"run", "--strategy", "nope", "--scenario", "missing-key"},
		{"run", "--strategy", "pg-tx", "--scenario", "nope"},
		{"run", "--strategy", "pg-tx", "--scenario", "missing-key", "--seed", "-1"},
		{"matrix", "--seeds", "0"},
		{"matrix", "--strategies", "pg-tx,bogus"},
		{"matrix", "--profile", "rfc"},
		{"matrix", "--replicas", "0"},
		{"matrix", "--bogus-flag"},
		{"matrix", "extra"},
	}
	for _, args := range cases {
		o := cli(t, args...)
		if o.code != exitUsage {
			t.Errorf("%v: exit %d; want %d\n%s", args, o.code, exitUsage, o.stderr)
			continue
		}
		if len(args) > 0 && (strings.Count(strings.TrimSpace(o.stderr), "\n") != 0 || !strings.HasPrefix(o.stderr, "idemchaos: ")) {
			t.Errorf("%v: stderr %q; want one line starting with idemchaos:", args, o.stderr)
		}
	}
}

func TestListNamesEverything(t *testing.T) {
	o := cli(t, "list")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, want := range append(design.Names(), "concurrent-duplicates", "dropped-response", "payload-mismatch", "missing-key", "ietf", "stripe") {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("list does not mention %s", want)
		}
	}
	if !strings.Contains(o.stdout, "YOUR OWN SERVICE (--target-url): runs concurrent-duplicates, dropped-response") {
		t.Errorf("list does not say what runs against your own service")
	}
}

func TestRunExitCodeFollowsVerdict(t *testing.T) {
	t.Parallel()
	o := cli(t, "run", "--strategy", "none", "--scenario", "concurrent-duplicates", "--seed", "2")
	if o.code != exitViolated || !strings.Contains(o.stdout, "double_charge") || !strings.Contains(o.stdout, "repro: idemchaos run --strategy none --scenario concurrent-duplicates --seed 2") {
		t.Fatalf("none: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = cli(t, "run", "--strategy", "pg-tx", "--scenario", "concurrent-duplicates", "--seed", "2")
	if o.code != exitPass || !strings.Contains(o.stdout, "PASS") {
		t.Fatalf("pg-tx: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestMatrixJSONHasTheScriptedFields checks the fields scripts rely on.
func TestMatrixJSONHasTheScriptedFields(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.json")
	o := cli(t, "matrix", "--strategies", "none,pg-tx", "--scenarios", "missing-key,payload-mismatch", "--seeds", "2", "--json", file)
	if o.code != exitPass {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, "none") || !strings.Contains(o.stdout, "8 runs: 4 pass, 4 fail") {
		t.Fatalf("table:\n%s", o.stdout)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int              `json:"schema_version"`
		Results       []map[string]any `json:"results"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 || len(doc.Results) != 8 {
		t.Fatalf("schema %d, %d results; want 1 and 8", doc.SchemaVersion, len(doc.Results))
	}
	for _, r := range doc.Results {
		for _, field := range []string{"strategy", "scenario", "seed", "verdict", "anomalies", "requests", "duration_ms"} {
			if _, ok := r[field]; !ok {
				t.Fatalf("result lacks %q: %v", field, r)
			}
		}
		if _, ok := r["anomalies"].(map[string]any); !ok {
			t.Fatalf("anomalies is not an object: %v", r["anomalies"])
		}
	}
}

func TestMatrixJSONToStdout(t *testing.T) {
	o := cli(t, "matrix", "--strategies", "pg-tx", "--scenarios", "missing-key", "--seeds", "1", "--json", "-")
	var doc map[string]any
	if o.code != 0 || json.Unmarshal([]byte(o.stdout), &doc) != nil {
		t.Fatalf("exit %d; stdout is not JSON:\n%s", o.code, o.stdout)
	}
}

func TestUnreachableStoreIsAnEnvironmentError(t *testing.T) {
	o := cliEnv(t, nil, "run", "--strategy", "pg-tx", "--scenario", "missing-key", "--redis-url", "redis://127.0.0.1:1/0", "--postgres-url", services.PostgresURL)
	if o.code != exitEnv || !strings.Contains(lastLine(o.stderr), "127.0.0.1:1") {
		t.Fatalf("exit %d, stderr %q; want exit 3 naming the address", o.code, o.stderr)
	}
}
