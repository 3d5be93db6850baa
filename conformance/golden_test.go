package conformance_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var services *provision.Services

func TestMain(m *testing.M) { os.Exit(provisiontest.Main(m, &services)) }

// TestConformanceVerdicts is the CI form of `make conformance`: every
// target, every scenario that can run against it, under both profiles,
// one seed per cell, compared with the committed verdicts
// (conformance/verdicts.golden, which `make conformance` regenerates with
// CONFORMANCE.md). A changed verdict fails with the difference; so does an
// anomaly no finding explains, a target that does not build or start
// (Node missing included), and a run that did not write its reports.
func TestConformanceVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance run takes minutes; -short leaves it to make conformance")
	}
	t.Parallel()
	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "run")
	// three rows at once: a row waits on its scenarios far more than it
	// computes (docs/testing.md)
	cmd := exec.Command(bin, append([]string{"conformance", "--seeds", "1", "--parallel", "3", "--quiet", "--source", "..", "--out", out,
		"--golden", "verdicts.golden"}, workArgs(t)...)...)
	cmd.Env = append(os.Environ(), "IDEMCHAOS_REDIS_URL="+services.RedisURL, "IDEMCHAOS_POSTGRES_URL="+services.PostgresURL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("stderr:\n%s", lastLines(stderr.String(), 30))
	if err != nil {
		logInconclusive(t, filepath.Join(out, "conformance.json"))
		t.Fatalf("idemchaos conformance: %v (a changed verdict, an unexplained anomaly or a target that did not run: see stderr above)", err)
	}
	for _, f := range []string{"CONFORMANCE.md", "conformance.json", "junit.xml", "report.html"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("the run wrote no %s: %v", f, err)
		}
	}
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
	}
	if b, err := os.ReadFile(filepath.Join(out, "junit.xml")); err != nil || xml.Unmarshal(b, &suites) != nil {
		t.Errorf("junit.xml is not a JUnit document: %v", err)
	}
}

// buildCLI builds this checkout's idemchaos into a temporary directory, or
// takes the suite's (make test's).
func buildCLI(t *testing.T) string {
	t.Helper()
	dir, err := provisiontest.Build(t.TempDir(), "../cmd/idemchaos")
	if err != nil {
		t.Fatalf("build idemchaos: %v", err)
	}
	return filepath.Join(dir, "idemchaos")
}

// workArgs keep the targets' builds in the suite's binaries (make
// test's), where go build does not link an unchanged target again; without
// them the CLI builds in a temporary directory of its own.
func workArgs(t *testing.T) []string {
	t.Helper()
	bin := provisiontest.Binaries()
	if bin == "" {
		return nil
	}
	dir := filepath.Join(bin, "conformance")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"--work", dir}
}

// logInconclusive logs why each inconclusive cell of a failed run proved
// nothing (the run's temp dir goes with the test).
func logInconclusive(t *testing.T, file string) {
	var doc results.Document
	b, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		t.Logf("no results to explain the failure: %v", err)
		return
	}
	for _, r := range doc.Results {
		if r.Verdict == scenarios.Inconclusive {
			t.Logf("inconclusive: %s / %s seed %d: unexercised %v, assumptions %q, findings %v",
				r.Strategy, r.Scenario, r.Seed, r.Unexercised, r.Assumptions, r.Findings)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestGoldenExplainsEveryAnomaly: every anomaly the committed verdicts
// pin has a finding that explains it, by the library's code, and so has
// every cell pinned inconclusive.
func TestGoldenExplainsEveryAnomaly(t *testing.T) {
	f, err := os.Open("verdicts.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, err := conformance.ReadVerdicts(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatal("no verdict pinned")
	}
	for _, v := range vs {
		target, profile, _ := strings.Cut(v.Row, ".")
		if v.Class == conformance.Inconclusive && conformance.ExplainInconclusive(target, profile, v.Scenario) == nil {
			t.Errorf("%s / %s is pinned inconclusive but nothing explains why", v.Row, v.Scenario)
		}
		for _, a := range v.Anomalies {
			name := strings.TrimSuffix(a, "?")
			if conformance.Explain(target, v.Scenario, anomaly(name)) == nil {
				t.Errorf("%s / %s: %s is pinned but no finding explains it", v.Row, v.Scenario, name)
			}
		}
	}
}
