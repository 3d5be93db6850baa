package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
)

// soakDoc is the part of the soak's JSON document the tests read.
type soakDoc struct {
	Command string             `json:"command"`
	Seeds   []uint64           `json:"seeds"`
	Results []scenarios.Result `json:"results"`
}

func readSoakDoc(t *testing.T, path string) soakDoc {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc soakDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSoakCorrectStrategyFindsNothing: the reference strategy survives a
// short soak of the default scenario set, and exits 0.
func TestSoakCorrectStrategyFindsNothing(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "soak.json")
	o := cli(t, "soak", "--strategies", "pg-tx", "--duration", "3s", "--seed", "11", "--json", file)
	if o.code != exitPass {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "soak: root seed 11 ") || !strings.Contains(o.stdout, "verdict: no unexpected anomaly") {
		t.Fatalf("no root seed or verdict:\n%s\n%s", o.stdout, o.stderr)
	}
	doc := readSoakDoc(t, file)
	if doc.Command != "soak" || len(doc.Results) == 0 {
		t.Fatalf("document: command %q, %d results", doc.Command, len(doc.Results))
	}
	for _, r := range doc.Results {
		if r.Strategy != "pg-tx" || r.Verdict != scenarios.Pass || !contains(scenarios.SoakNames(), r.Scenario) {
			t.Errorf("%s / %s seed %d: %s %v", r.Strategy, r.Scenario, r.Seed, r.Verdict, r.Anomalies)
		}
	}
}

var reproLine = regexp.MustCompile(`(?m)^\s+caught\s+(idemchaos run --strategy redis-getset --scenario concurrent-duplicates --seed \d+)\s+# .*double_charge=\d+`)

// TestSoakReproLineReproduces: a flawed strategy's declared anomaly is
// reported as caught (exit 0), and its repro line, run as printed, fails.
func TestSoakReproLineReproduces(t *testing.T) {
	t.Parallel()
	o := cli(t, "soak", "--strategies", "redis-getset", "--scenarios", "concurrent-duplicates", "--duration", "3s", "--seed", "3")
	if o.code != exitPass {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	m := reproLine.FindStringSubmatch(o.stdout)
	if m == nil {
		t.Fatalf("no caught double_charge with a repro line:\n%s", o.stdout)
	}
	args := strings.Fields(m[1])[1:] // drop "idemchaos"
	r := cli(t, args...)
	if r.code != exitViolated || !strings.Contains(r.stdout, "double_charge") {
		t.Fatalf("%s: exit %d; want %d and a double_charge\n%s", m[1], r.code, exitViolated, r.stdout)
	}
}

// TestSoakStopsAtTheRoundCap: rounds use distinct seeds drawn from the root
// seed, the same root seed gives the same seeds, and the cap ends the soak.
func TestSoakStopsAtTheRoundCap(t *testing.T) {
	var seeds [2][]uint64
	for i := range seeds {
		file := filepath.Join(t.TempDir(), "soak.json")
		o := cli(t, "soak", "--strategies", "pg-tx,none", "--scenarios", "missing-key", "--max-rounds", "3",
			"--duration", "1m", "--seed", "5", "--json", file)
		if o.code != exitPass || !strings.Contains(o.stdout, "3 rounds (round cap 3 reached), 6 cells") {
			t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
		}
		seeds[i] = readSoakDoc(t, file).Seeds
	}
	if len(seeds[0]) != 3 || seeds[0][0] == seeds[0][1] || seeds[0][1] == seeds[0][2] {
		t.Fatalf("seeds %v; want 3 distinct", seeds[0])
	}
	if !slices.Equal(seeds[0], seeds[1]) {
		t.Fatalf("same root seed, different seeds: %v and %v", seeds[0], seeds[1])
	}
}

func TestSoakUsageErrorsExit2WithOneLine(t *testing.T) {
	cases := [][]string{
		{"soak", "--duration", "0"},
		{"soak", "--duration", "-5s"},
		{"soak", "--duration", "10ms"},
		{"soak", "--duration", "25h"},
		{"soak", "--duration", "soon"},
		{"soak", "--max-rounds", "0"},
		{"soak", "--parallel", "9"},
		{"soak", "--strategies", "pg-tx,bogus"},
		{"soak", "--scenarios", "nope"},
		{"soak", "--seed", "-1"},
		{"soak", "extra"},
	}
	for _, args := range cases {
		o := cli(t, args...)
		if o.code != exitUsage || strings.Count(strings.TrimSpace(o.stderr), "\n") != 0 || !strings.HasPrefix(o.stderr, "idemchaos: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, o.code, o.stderr)
		}
	}
}

func TestSoakHelpNamesTheDefaultScenarios(t *testing.T) {
	o := cli(t, "soak", "-h")
	if o.code != exitPass || !strings.Contains(o.stdout, strings.Join(scenarios.SoakNames(), ",")) {
		t.Fatalf("exit %d\n%s", o.code, o.stdout)
	}
	for _, name := range scenarios.SoakNames() {
		if _, err := scenarios.Lookup(name); err != nil {
			t.Error(err)
		}
	}
}

// TestSoakInterruptedPrintsThePartialSummary: Ctrl-C ends a soak with exit
// 130, after the summary and the JSON document of the cells it finished.
func TestSoakInterruptedPrintsThePartialSummary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "soak.json")
	stores := []string{"IDEMCHAOS_REDIS_URL=" + services.RedisURL, "IDEMCHAOS_POSTGRES_URL=" + services.PostgresURL}
	p := startCLIEnv(t, traversableTempDir(t), stores, "soak", "--strategies", "pg-tx,none", "--scenarios",
		"missing-key,payload-mismatch", "--duration", "1m", "--seed", "8", "--json", file)
	if !p.stderr.waitFor("round 2 ", procWait, p.done) {
		t.Fatalf("no second round within %v:\n%s", procWait, p.stderr.text())
	}
	p.signal(t, syscall.SIGINT)
	if code := p.wait(t, 30*time.Second); code != exitInterrupted {
		t.Fatalf("exit %d; want %d\n%s", code, exitInterrupted, p.stderr.text())
	}
	out := p.stdout.String()
	if !strings.Contains(out, "(interrupted)") || !strings.Contains(out, "verdict: stopped early (interrupted)") {
		t.Fatalf("no partial summary:\n%s", out)
	}
	doc := readSoakDoc(t, file)
	if len(doc.Results) < 8 || !strings.Contains(out, fmt.Sprintf("%d cells in", len(doc.Results))) {
		t.Fatalf("%d results in the document; want at least 2 rounds' 8, as many as the summary counts\n%s", len(doc.Results), out)
	}
}
