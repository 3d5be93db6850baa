package reports

import (
	"encoding/xml"
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// JUnit failure types, in the type attribute of <failure> and <error>.
const (
	// JUnitNotAsDeclared: a cell failed (or failed differently) where the
	// catalog declares otherwise: a correct strategy broke, or a flawed one
	// broke in another way than declared.
	JUnitNotAsDeclared = "not_as_declared"
	// JUnitNotCaught: a flawed strategy passed where the catalog declares the
	// harness catches it: the harness lost its grip.
	JUnitNotCaught = "not_caught"
	// JUnitInconclusive: a run's own assumptions failed; nothing was proved.
	JUnitInconclusive = "inconclusive"
	// JUnitBroken: an invariant was broken where no failure is declared
	// (a user's own service, or the single cell of a run, whose exit code
	// is its verdict).
	JUnitBroken = "invariant_broken"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
	ms        int64
}

type junitCase struct {
	ClassName string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	Time      string `xml:"time,attr"`
	// Properties carry the cell's coverage: how many seeds exercised
	// what its scenario is about.
	Properties *junitProperties `xml:"properties"`
	Failure    *junitProblem    `xml:"failure"`
	Error      *junitProblem    `xml:"error"`
	Skipped    *junitSkip       `xml:"skipped"`
	SystemOut  *junitText       `xml:"system-out"`
}

type junitProperties struct {
	Props []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitCoverage is the cell's exercised k/n and, for a race hunted in
// rounds against a service, its overlaps over the seeds against the
// target, as properties; nil when there is neither.
func junitCoverage(c results.Cell) *junitProperties {
	var props []junitProperty
	if cov := c.Coverage(); cov.Of > 0 {
		props = append(props, junitProperty{Name: "exercised", Value: fmt.Sprintf("%d/%d", cov.Exercised, cov.Of)},
			junitProperty{Name: "exercise", Value: xmlSafe(cov.What)})
	}
	if p, ok := c.Power(); ok {
		props = append(props, junitProperty{Name: "overlaps", Value: fmt.Sprint(p.Overlaps)},
			junitProperty{Name: "power_target", Value: fmt.Sprint(p.Target)}, junitProperty{Name: "power_aim", Value: fmt.Sprint(p.Aim)},
			junitProperty{Name: "rounds", Value: fmt.Sprint(p.Rounds)})
	}
	if len(props) == 0 {
		return nil
	}
	return &junitProperties{Props: props}
}

// junitText is element text kept readable in CDATA, multi-line.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitSkip struct {
	Message string `xml:"message,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// WriteJUnit renders doc as JUnit XML: one <testsuite> per strategy, one
// <testcase> per (strategy, scenario) with its time summed over the seeds.
// A cell not as the catalog declares is a <failure>; an inconclusive one an
// <error>. A cell that fails as declared (a flawed strategy caught) passes,
// with its evidence in <system-out>: the build is green when the harness
// catches what it should. A run's single cell (command run or demo) and a
// user's service are read by their verdict instead, as their exit codes
// are: a failure is a <failure> of type invariant_broken.
func WriteJUnit(w io.Writer, doc results.Document) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitOf(doc)); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitOf groups the cells into one suite per strategy and sums the counts.
func junitOf(doc results.Document) junitSuites {
	root := junitSuites{Name: "idemchaos"}
	at := map[string]int{}
	var total int64
	for _, c := range results.Cells(doc.Results) {
		i, ok := at[c.Strategy]
		if !ok {
			i = len(root.Suites)
			at[c.Strategy] = i
			root.Suites = append(root.Suites, junitSuite{Name: c.Strategy, Timestamp: junitTimestamp(doc)})
		}
		tc, ms := junitCaseOf(c, byVerdict(doc, c))
		root.Suites[i].add(tc, ms)
		total += ms
	}
	for _, sk := range doc.Skipped {
		i, ok := at[sk.Strategy]
		if !ok {
			i = len(root.Suites)
			at[sk.Strategy] = i
			root.Suites = append(root.Suites, junitSuite{Name: sk.Strategy, Timestamp: junitTimestamp(doc)})
		}
		root.Suites[i].add(junitCase{ClassName: "idemchaos." + sk.Strategy, Name: sk.Scenario, Time: seconds(0),
			Skipped: &junitSkip{Message: sk.Reason}}, 0)
	}
	for _, s := range root.Suites {
		root.Tests, root.Failures, root.Errors = root.Tests+s.Tests, root.Failures+s.Failures, root.Errors+s.Errors
		root.Skipped += s.Skipped
	}
	root.Time = seconds(total)
	return root
}

func (s *junitSuite) add(tc junitCase, ms int64) {
	s.Cases = append(s.Cases, tc)
	s.Tests++
	s.ms += ms
	s.Time = seconds(s.ms)
	if tc.Failure != nil {
		s.Failures++
	}
	if tc.Error != nil {
		s.Errors++
	}
	if tc.Skipped != nil {
		s.Skipped++
	}
}

func junitTimestamp(doc results.Document) string {
	if doc.Started.IsZero() {
		return ""
	}
	return doc.Started.UTC().Format("2006-01-02T15:04:05")
}

func seconds(ms int64) string { return fmt.Sprintf("%d.%03d", ms/1000, ms%1000) }

// byVerdict reports whether a cell is read by its verdict alone.
func byVerdict(doc results.Document, c results.Cell) bool {
	return c.Service() || doc.Command == "run" || doc.Command == "demo"
}

// junitCaseOf renders one cell and returns its duration in milliseconds.
func junitCaseOf(c results.Cell, verdictOnly bool) (junitCase, int64) {
	var ms int64
	for _, r := range c.Results {
		ms += r.DurationMS
	}
	tc := junitCase{ClassName: "idemchaos." + c.Strategy, Name: c.Scenario, Time: seconds(ms), Properties: junitCoverage(c)}
	evidence := xmlSafe(cellEvidence(c))
	if verdictOnly {
		switch c.Verdict() {
		case scenarios.Fail:
			tc.Failure = &junitProblem{Message: cellMessage(c), Type: JUnitBroken, Text: evidence}
		case scenarios.Inconclusive:
			tc.Error = &junitProblem{Message: cellMessage(c), Type: JUnitInconclusive, Text: evidence}
		default:
			if as := adaptations([]results.Cell{c}); len(as) > 0 {
				tc.SystemOut = &junitText{Text: xmlSafe("adapted: " + strings.Join(as[0].Notes, "\nadapted: ") + "\n")}
			}
		}
		return tc, ms
	}
	switch classify(c) {
	case stUnexpected:
		typ := JUnitNotAsDeclared
		if notCaught(c) {
			typ = JUnitNotCaught
		}
		tc.Failure = &junitProblem{Message: cellMessage(c), Type: typ, Text: evidence}
	case stInconclusive:
		tc.Error = &junitProblem{Message: cellMessage(c), Type: JUnitInconclusive, Text: evidence}
	case stCaught:
		tc.SystemOut = &junitText{Text: "caught as declared: the harness found the flaw this strategy is known for\n" + evidence}
	}
	return tc, ms
}

// cellMessage is the one-line summary of a cell for a message attribute.
func cellMessage(c results.Cell) string {
	bad := 0
	for _, r := range c.Results {
		if r.Verdict != scenarios.Pass || !r.AsExpected {
			bad++
		}
	}
	s := fmt.Sprintf("%s on %d/%d seeds", c.Verdict(), bad, len(c.Results))
	if a := counts(c.Anomalies(), check.Anomaly.String, ", "); a != "" {
		s += ": " + a
	}
	if m := c.Overcharged(); m > 0 {
		s += "; " + Money(m) + " overcharged"
	}
	if classify(c) == stUnexpected && !c.Service() {
		s += " (NOT as declared; " + declaration(c.Results[0]) + ")"
	}
	return s
}

// cellEvidence is the plain-text evidence of a cell: per seed that did not
// pass or is not as declared, anomalies, money, first findings, failed
// assumptions and the repro line.
func cellEvidence(c results.Cell) string {
	var b strings.Builder
	rs, more := shown(c)
	for _, r := range rs {
		fmt.Fprintf(&b, "seed %d: %s (%s)\n", r.Seed, seedState(r), declarationOf(r))
		if a := counts(r.Anomalies, check.Anomaly.String, ", "); a != "" {
			fmt.Fprintf(&b, "  anomalies: %s\n", a)
		}
		if r.Overcharged > 0 {
			fmt.Fprintf(&b, "  overcharged: %s\n", Money(r.Overcharged))
		}
		fs, left := firstFindings(r)
		for _, f := range fs {
			fmt.Fprintf(&b, "  - %s\n", findingLine(f))
		}
		if left > 0 {
			fmt.Fprintf(&b, "  ... %d more findings in the JSON output\n", left)
		}
		for _, a := range r.Assumptions {
			fmt.Fprintf(&b, "  assumption not met: %s\n", oneLine(a))
		}
		for _, a := range r.Adapted {
			fmt.Fprintf(&b, "  adapted: %s\n", oneLine(a))
		}
		fmt.Fprintf(&b, "  repro: %s\n", oneLine(r.Repro))
	}
	if more > 0 {
		fmt.Fprintf(&b, "... %d more seeds in the JSON output\n", more)
	}
	return b.String()
}

// xmlSafe replaces the characters XML 1.0 cannot carry, even in CDATA, with
// U+FFFD (encoding/xml does so for attributes and escaped text only).
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}
