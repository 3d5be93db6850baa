package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClientConformanceBadInput: a client table asked for with a name it
// lacks, a flag of the library table, or a saved run that is not one gets
// one line and exit 2, before anything is built or started.
func TestClientConformanceBadInput(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"conformance", "--clients", "--only", "stripe-nod"}, `--only: unknown name "stripe-nod"`},
		{[]string{"conformance", "--clients", "--scenarios", "missing-key"}, "unknown flag --scenarios"},
		{[]string{"conformance", "--clients", "--seeds", "0"}, "--seeds 0"},
		{[]string{"conformance", "--clients", "--parallel", "9"}, "--parallel 9"},
		{[]string{"conformance", "--clients", "--from", empty}, "holds no client run"},
	} {
		o := cli(t, tc.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, tc.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line with %q", tc.args, o.code, o.stderr, exitUsage, tc.want)
		}
	}
}

// TestClientConformanceFromASavedRun: --from writes the table and the
// verdicts again from a saved run without running anything, and --golden
// fails on a verdict that changed.
func TestClientConformanceFromASavedRun(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join("testdata", "clients-run")
	md, verdicts := filepath.Join(dir, "CLIENTS.md"), filepath.Join(dir, "clients.golden")
	o := cli(t, "conformance", "--clients", "--only", "stripe-go", "--seeds", "1", "--from", saved, "--md", md, "--verdicts", verdicts)
	if o.code != exitPass {
		t.Fatalf("exit %d:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	table, _ := os.ReadFile(md)
	for _, want := range []string{"| stripe-go | github.com/stripe/stripe-go/v82 v82.5.1 |", "breaks money | `tfc` told_failed_charged | tfc: in-flight |",
		"(*BackendImplementation).shouldRetry", "Timing: idemchaos conformance --clients --only stripe-go --seeds 1, 1 seed(s) per client"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("CLIENTS.md has no %q:\n%s", want, table)
		}
	}
	pinned, _ := os.ReadFile(verdicts)
	if !strings.Contains(string(pinned), "stripe-go client/stripe: breaks money (told_failed_charged)\n") {
		t.Errorf("verdicts:\n%s", pinned)
	}
	changed := filepath.Join(dir, "changed.golden")
	if err := os.WriteFile(changed, []byte("stripe-go client/stripe: pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = cli(t, "conformance", "--clients", "--only", "stripe-go", "--seeds", "1", "--from", saved, "--golden", changed)
	if o.code != exitViolated || !strings.Contains(o.stderr, "- stripe-go client/stripe: pass\n+ stripe-go client/stripe: breaks money (told_failed_charged)") {
		t.Errorf("a changed verdict: exit %d, stderr:\n%s", o.code, o.stderr)
	}
}
