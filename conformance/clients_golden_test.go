package conformance_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
)

// TestClientVerdicts is the CI form of `make conformance-clients`: every
// client driver of conformance/clients/ built (npm ci, go build) and run
// by client mode on one seed, its verdict compared with the committed one
// (conformance/clients.golden), and the table it writes compared with the
// committed CLIENTS.md line for line but for its last, which says how
// many seeds ran and how long they took: a changed verdict, finding or
// fault fails, as does an anomaly nothing explains, a client that proved
// nothing or did not run (Node missing included). The saved run is then
// judged again offline by idemchaos check, to the same exit code.
func TestClientVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("the client conformance run takes minutes; -short leaves it to make conformance-clients")
	}
	t.Parallel()
	bin := buildCLI(t)
	dir := t.TempDir()
	run, md := filepath.Join(dir, "run"), filepath.Join(dir, "CLIENTS.md")
	cmd := exec.Command(bin, append([]string{"conformance", "--clients", "--seeds", "1", "--quiet", "--source", "..", "--out", run,
		"--md", md, "--golden", "clients.golden"}, workArgs(t)...)...)
	cmd.Env = append(os.Environ(), "IDEMCHAOS_POSTGRES_URL="+services.PostgresURL, "IDEMCHAOS_REDIS_URL="+services.RedisURL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("stderr:\n%s", lastLines(stderr.String(), 30))
	if err != nil {
		t.Fatalf("idemchaos conformance --clients: %v (a changed verdict, an unexplained anomaly or a client that did not run: see stderr above)\n%s",
			err, stdout.String())
	}
	got, want := readTable(t, md), readTable(t, filepath.Join("..", "CLIENTS.md"))
	if got != want {
		t.Errorf("the table regenerated from one seed differs from CLIENTS.md (make conformance-clients rewrites it):\n%s",
			lineDiff(want, got))
	}
	check := exec.Command(bin, "check", run)
	out, err := check.CombinedOutput()
	if code := check.ProcessState.ExitCode(); code != 1 {
		t.Errorf("idemchaos check of the saved run: exit %d (%v); want 1, as the clients that break money failed:\n%s", code, err, out)
	}
}

// readTable is a CLIENTS.md without its last line (the run's seeds and
// timing).
func readTable(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, reports.ConformanceTimingPrefix) {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// lineDiff lists the lines of want missing from got and those of got that
// want lacks.
func lineDiff(want, got string) string {
	index := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := index(want), index(got)
	var out []string
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
