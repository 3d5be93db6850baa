package reports_test

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// The JUnit schema as CI systems read it, mirrored independently of the
// writer's own types.
type xTestsuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    *int         `xml:"tests,attr"`
	Failures *int         `xml:"failures,attr"`
	Errors   *int         `xml:"errors,attr"`
	Skipped  *int         `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []xTestsuite `xml:"testsuite"`
}

type xTestsuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []xTestcase `xml:"testcase"`
}

type xTestcase struct {
	ClassName string    `xml:"classname,attr"`
	Name      string    `xml:"name,attr"`
	Time      string    `xml:"time,attr"`
	Failure   *xProblem `xml:"failure"`
	Error     *xProblem `xml:"error"`
	Skipped   *xProblem `xml:"skipped"`
	SystemOut string    `xml:"system-out"`
}

type xProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func parseJUnit(t *testing.T, doc results.Document) xTestsuites {
	t.Helper()
	var got xTestsuites
	if err := xml.Unmarshal(render(t, reports.WriteJUnit, doc), &got); err != nil {
		t.Fatalf("the JUnit output does not parse: %v", err)
	}
	return got
}

func TestJUnitCountsAndShape(t *testing.T) {
	got := parseJUnit(t, fixture())
	if got.Tests == nil || got.Failures == nil || got.Errors == nil || got.Skipped == nil || got.Time == "" {
		t.Fatalf("<testsuites> lacks a required attribute: %+v", got)
	}
	if *got.Tests != 6 || *got.Failures != 2 || *got.Errors != 1 || *got.Skipped != 0 || got.Time != "1.380" {
		t.Fatalf("testsuites: tests=%d failures=%d errors=%d skipped=%d time=%s; want 6 2 1 0 1.380",
			*got.Tests, *got.Failures, *got.Errors, *got.Skipped, got.Time)
	}
	var names []string
	for _, s := range got.Suites {
		names = append(names, s.Name)
		checkSuiteSums(t, s)
	}
	if strings.Join(names, ",") != "none,redis-setnx,pg-tx" {
		t.Fatalf("suites %v; want one per strategy in first-seen order", names)
	}
	if tc := got.Suites[0].Cases[0]; tc.Name != "dropped-response" || tc.Time != "0.230" || tc.Failure != nil || tc.Error != nil {
		t.Errorf("a cell failing as declared must pass in JUnit: %+v", tc)
	}
}

// checkSuiteSums checks a suite's attributes against its test cases.
func checkSuiteSums(t *testing.T, s xTestsuite) {
	t.Helper()
	fails, errs := 0, 0
	ms := 0
	for _, tc := range s.Cases {
		if tc.ClassName != "idemchaos."+s.Name {
			t.Errorf("classname %q in suite %q", tc.ClassName, s.Name)
		}
		if tc.Failure != nil {
			fails++
		}
		if tc.Error != nil {
			errs++
		}
		ms += millis(t, tc.Time)
	}
	if s.Tests != len(s.Cases) || s.Failures != fails || s.Errors != errs || s.Skipped != 0 || millis(t, s.Time) != ms {
		t.Errorf("suite %s: attributes %+v disagree with its test cases", s.Name, s)
	}
	if s.Timestamp != "2025-11-29T19:00:00" {
		t.Errorf("suite %s: timestamp %q", s.Name, s.Timestamp)
	}
}

func millis(t *testing.T, s string) int {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return int(f*1000 + 0.5)
}

func TestJUnitEvidence(t *testing.T) {
	cases := map[string]xTestcase{}
	for _, s := range parseJUnit(t, fixture()).Suites {
		for _, tc := range s.Cases {
			cases[s.Name+"/"+tc.Name] = tc
		}
	}
	caught := cases["none/dropped-response"]
	if !strings.Contains(caught.SystemOut, "caught as declared") || !strings.Contains(caught.SystemOut, "double_charge=1") ||
		!strings.Contains(caught.SystemOut, "repro: idemchaos run --strategy none --scenario dropped-response --seed 2") {
		t.Errorf("a declared failure keeps its evidence in system-out:\n%s", caught.SystemOut)
	}
	broken := cases["pg-tx/redis-fault-after-commit"]
	if broken.Failure == nil || broken.Failure.Type != reports.JUnitNotAsDeclared ||
		!strings.Contains(broken.Failure.Message, "status_contract=1") ||
		!strings.Contains(broken.Failure.Text, `got 500 <Internal> & "no 409"`) ||
		!strings.Contains(broken.Failure.Text, "repro: idemchaos run --strategy pg-tx --scenario redis-fault-after-commit --seed 1") {
		t.Errorf("failing not as declared: %+v", broken.Failure)
	}
	if f := cases["none/redis-fault-after-commit"].Failure; f == nil || f.Type != reports.JUnitNotCaught {
		t.Errorf("a flawed strategy that passed must fail the build as not caught: %+v", f)
	}
	e := cases["pg-tx/dropped-response"].Error
	if e == nil || e.Type != reports.JUnitInconclusive || !strings.Contains(e.Text, "assumption not met: the fault did not fire") {
		t.Errorf("an inconclusive cell is an error with its assumptions: %+v", e)
	}
	more := cases["redis-setnx/redis-fault-after-commit"].SystemOut
	if !strings.Contains(more, "... 2 more findings in the JSON output") {
		t.Errorf("findings are bounded per seed:\n%s", more)
	}
}

// TestJUnitEscapesData feeds markup, quotes and control characters through
// every field that reaches the XML.
func TestJUnitEscapesData(t *testing.T) {
	nasty := "]]></failure><x a=\"1\">&amp;\x1b\x00'"
	r := scenarios.Result{Strategy: "s<1>", Scenario: "c&\"2\"", Seed: 1, Verdict: scenarios.Fail,
		Anomalies: map[check.Anomaly]int{"double_charge": 1}, Repro: "idemchaos " + nasty,
		Findings: []check.Finding{{Anomaly: "double_charge", Detail: nasty}}, Assumptions: []string{nasty}}
	got := parseJUnit(t, results.Document{Results: []scenarios.Result{r}})
	tc := got.Suites[0].Cases[0]
	if got.Suites[0].Name != "s<1>" || tc.Name != "c&\"2\"" || tc.ClassName != "idemchaos.s<1>" || tc.Failure == nil {
		t.Fatalf("names did not survive escaping: %+v", got.Suites[0])
	}
	if !strings.Contains(tc.Failure.Text, "]]></failure><x a=\"1\">&amp;") {
		t.Errorf("data text did not survive escaping:\n%s", tc.Failure.Text)
	}
}

func TestJUnitSkippedScenariosAreSkippedCases(t *testing.T) {
	doc := results.Document{Skipped: []results.Skip{{Strategy: "target", Scenario: "forced-race", Reason: "needs a gate"}}}
	var b strings.Builder
	if err := reports.WriteJUnit(&b, doc); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`skipped="1"`, `<testcase classname="idemchaos.target" name="forced-race"`, `<skipped message="needs a gate">`} {
		if !strings.Contains(out, want) {
			t.Errorf("junit lacks %q:\n%s", want, out)
		}
	}
}

// TestJUnitPowerProperties: a race hunted in rounds against a service
// carries its overlaps and rounds summed over the seeds, and the target
// and aim it was held to, as properties.
func TestJUnitPowerProperties(t *testing.T) {
	var rs []scenarios.Result
	for seed := uint64(1); seed <= 2; seed++ {
		r := res("svc", "concurrent-duplicates", seed, scenarios.Pass, true)
		r.Service = true
		r.Power = &scenarios.Power{Overlaps: 3000 + int(seed), Target: 299, Aim: 2995, Rounds: 20}
		rs = append(rs, r)
	}
	out := string(render(t, reports.WriteJUnit, results.Document{SchemaVersion: results.SchemaVersion, Tool: "idemchaos", Command: "matrix",
		Summary: results.Summarize(rs), Results: rs}))
	for _, want := range []string{`<property name="overlaps" value="6003">`, `<property name="power_target" value="299">`,
		`<property name="power_aim" value="2995">`, `<property name="rounds" value="40">`} {
		if !strings.Contains(out, want) {
			t.Errorf("the JUnit lacks %s:\n%s", want, out)
		}
	}
}
