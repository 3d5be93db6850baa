package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// TestLegacyRunDirectories: run directories saved by an earlier release (a
// built-in matrix with a two-store strategy, a scenario file, a user's own
// service) are judged again offline with the verdicts they were saved with,
// and print the same table as they did then. A refactoring that loses a fact
// a saved record relies on (which strategies keep two stores, say) fails here.
// The goldens changed only where the table's wording did, on purpose: the
// legend gained held_duplicate, then refusal_not_replayed, and a user's
// service is told without the catalog's "ok" and "not as declared"; the
// cells read "caught" and "pass" instead of "FAIL ... ok" and "PASS ok",
// the findings give money with its currency, long lines wrap at $COLUMNS
// (120 here), each cell says how many seeds exercised its scenario (read
// off the saved observations); the verdicts and counts never.
func TestLegacyRunDirectories(t *testing.T) {
	for _, name := range []string{"matrix", "custom", "external"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			copyTree(t, filepath.Join("testdata", "legacy-runs", name), dir)
			o := cliEnv(t, []string{"COLUMNS=120"}, "check", dir)
			if o.code != exitPass || !strings.Contains(o.stderr, "0 differ from the saved verdicts") {
				t.Fatalf("check: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "legacy-runs", name+".check.golden"))
			if err != nil {
				t.Fatal(err)
			}
			if o.stdout != string(want) {
				t.Fatalf("check prints another table than the release that saved the run:\n%s\n--- want\n%s", o.stdout, want)
			}
		})
	}
}

// copyTree copies a directory so a test never writes into testdata.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLegacyPlansWriteBackTheSame: the plans and fault schedules of the
// saved runs, in-target faults among them, read and written again as a run
// writes them give the same bytes: the typed injection keeps the format
// (its string; left out when a try has none).
func TestLegacyPlansWriteBackTheSame(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "legacy-runs", "*", "cells", "*", "*", "seed-*"))
	injects := 0
	for _, dir := range dirs {
		var plan workload.Plan
		var faults []workload.Fault
		for name, v := range map[string]any{rundir.PlanFile: &plan, rundir.FaultsFile: &faults} {
			path := filepath.Join(dir, name)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			var again bytes.Buffer
			enc := json.NewEncoder(&again)
			enc.SetIndent("", "  ")
			if err := enc.Encode(v); err != nil || again.String() != string(raw) {
				t.Errorf("%s written back differs (%v):\n%s", path, err, again.String())
			}
		}
		for _, f := range faults {
			if !f.Inject.IsZero() {
				injects++
			}
		}
	}
	if len(dirs) == 0 || injects == 0 {
		t.Fatalf("%d saved cells, %d in-target faults: the fixtures are gone", len(dirs), injects)
	}
}
