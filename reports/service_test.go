package reports_test

import (
	"html"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// serviceDoc is a user's service run under three scenarios: one broken,
// one passing, one inconclusive, and one skipped.
func serviceDoc() results.Document {
	broken := res("shop", "dropped-response", 1, scenarios.Fail, false)
	broken.Anomalies, broken.Overcharged = anoms("double_charge", 2), 1500
	broken.Findings = []check.Finding{{Anomaly: check.DoubleCharge, Key: "k1", Detail: "2 charges for one key"}}
	pass := res("shop", "payload-mismatch", 1, scenarios.Pass, true)
	unproven := res("shop", "concurrent-duplicates", 1, scenarios.Inconclusive, false)
	unproven.Assumptions = []string{"no two same-key requests were ever in flight together on the server"}
	doc := results.Document{Command: "matrix", Results: []scenarios.Result{broken, pass, unproven},
		Skipped: []results.Skip{{Strategy: "shop", Scenario: "forced-race", Reason: "needs a gate inside the target (failpoints)"}}}
	for i := range doc.Results {
		doc.Results[i].Service = true
	}
	return doc
}

// TestServiceReportsSpeakPlainly: a user's service is told in its own
// terms, with no catalog to read it against: no "declared", "catalog" or
// UNEXPECTED anywhere, a broken invariant a failure, a skip listed.
func TestServiceReportsSpeakPlainly(t *testing.T) {
	doc := serviceDoc()
	for name, write := range map[string]func(*testing.T, results.Document) string{
		"table":    func(t *testing.T, d results.Document) string { return string(render(t, tableOf, d)) },
		"markdown": func(t *testing.T, d results.Document) string { return string(render(t, reports.WriteMarkdown, d)) },
		"html": func(t *testing.T, d results.Document) string {
			return visibleText(string(render(t, reports.WriteHTML, d)))
		},
		"junit": func(t *testing.T, d results.Document) string { return string(render(t, reports.WriteJUnit, d)) },
	} {
		out := write(t, doc)
		for _, jargon := range []string{"declared", "catalog", "UNEXPECTED", "unexpected", " ok\n", "caught"} {
			if strings.Contains(out, jargon) {
				t.Errorf("%s speaks harness jargon (%q):\n%s", name, jargon, out)
			}
		}
		if name != "table" && !strings.Contains(out, "forced-race") {
			t.Errorf("%s does not list the skipped scenario", name)
		}
	}
	if md := string(render(t, reports.WriteMarkdown, doc)); !strings.Contains(md, "❌ failed") {
		t.Errorf("markdown does not say the scenario failed:\n%s", md)
	}
}

func TestServiceJUnitFailsTheBrokenScenario(t *testing.T) {
	got := parseJUnit(t, serviceDoc())
	var failed, errored, skipped []string
	for _, s := range got.Suites {
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				failed = append(failed, c.Name+":"+c.Failure.Type)
			case c.Error != nil:
				errored = append(errored, c.Name)
			case c.Skipped != nil:
				skipped = append(skipped, c.Name)
			}
		}
	}
	if strings.Join(failed, ",") != "dropped-response:"+reports.JUnitBroken || strings.Join(errored, ",") != "concurrent-duplicates" ||
		strings.Join(skipped, ",") != "forced-race" {
		t.Fatalf("failures %v, errors %v, skipped %v", failed, errored, skipped)
	}
}

// TestJUnitOfARunFollowsItsExitCode: the single cell of `run` exits 1 when
// it fails, even for a flawed strategy caught as declared; its JUnit says
// the same.
func TestJUnitOfARunFollowsItsExitCode(t *testing.T) {
	caught := res("none", "dropped-response", 1, scenarios.Fail, true, check.DoubleCharge)
	caught.Anomalies = anoms("double_charge", 3)
	for cmd, want := range map[string]bool{"run": true, "demo": true, "matrix": false} {
		got := parseJUnit(t, results.Document{Command: cmd, Results: []scenarios.Result{caught}})
		c := got.Suites[0].Cases[0]
		if (c.Failure != nil) != want || want && c.Failure.Type != reports.JUnitBroken {
			t.Errorf("%s: failure %+v; want a failure %v", cmd, c.Failure, want)
		}
	}
}

// tableOf renders a document's results as the terminal table, in full
// and, after it, compact.
func tableOf(w io.Writer, d results.Document) error {
	if err := reports.WriteTable(w, d.Results, reports.View{}); err != nil {
		return err
	}
	return reports.WriteTable(w, d.Results, reports.View{Width: 40})
}

var (
	styleBlock = regexp.MustCompile(`(?s)<style>.*?</style>`)
	markup     = regexp.MustCompile(`<[^>]*>`)
)

// visibleText is roughly what a browser shows of a page: no style, no tags.
func visibleText(page string) string {
	return html.UnescapeString(markup.ReplaceAllString(styleBlock.ReplaceAllString(page, ""), " "))
}

// TestServiceReportsSayHowScenariosWereAdapted: a scenario changed to run
// against the service says how in every format, passing or not.
func TestServiceReportsSayHowScenariosWereAdapted(t *testing.T) {
	doc := serviceDoc()
	const note = "adapted to the service's 300ms charge (median of 5, measured first)"
	doc.Results[1].Adapted = []string{note} // the passing one
	doc.Results[0].Adapted = []string{"1 in-target fault left out"}
	detail := func(t *testing.T, d results.Document) string {
		var b strings.Builder
		if err := reports.WriteDetail(&b, d.Results[1], reports.View{}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for name, write := range map[string]func(*testing.T, results.Document) string{
		"table":    func(t *testing.T, d results.Document) string { return string(render(t, tableOf, d)) },
		"detail":   detail,
		"markdown": func(t *testing.T, d results.Document) string { return string(render(t, reports.WriteMarkdown, d)) },
		"html": func(t *testing.T, d results.Document) string {
			return visibleText(string(render(t, reports.WriteHTML, d)))
		},
		"junit": func(t *testing.T, d results.Document) string { return string(render(t, reports.WriteJUnit, d)) },
	} {
		out := write(t, doc)
		if !strings.Contains(out, "payload-mismatch") || !strings.Contains(out, note) {
			t.Errorf("%s does not say how payload-mismatch was adapted:\n%s", name, out)
		}
		if name != "detail" && !strings.Contains(out, "1 in-target fault left out") {
			t.Errorf("%s does not say how dropped-response was adapted:\n%s", name, out)
		}
	}
}

// TestFirstStepIsTheGravest: a service that replays wrongly in one
// scenario and holds its duplicates in another is told to fix the holds
// first (money, then holds, then the contract), whatever the order of the
// scenarios or of the checker's catalog.
func TestFirstStepIsTheGravest(t *testing.T) {
	replays := res("shop", "dropped-response", 1, scenarios.Fail, false)
	replays.Anomalies = anoms("replay_mismatch", 64)
	replays.Findings = []check.Finding{{Anomaly: check.ReplayMismatch, Key: "k1", Detail: "another body"}}
	holds := res("shop", "concurrent-duplicates", 1, scenarios.Fail, false)
	holds.Anomalies = anoms("held_duplicate", 3)
	holds.Findings = []check.Finding{{Anomaly: check.HeldDuplicate, Key: "k2", Detail: "held 400ms"}}
	doc := results.Document{Command: "matrix", Results: []scenarios.Result{replays, holds}}
	for i := range doc.Results {
		doc.Results[i].Service = true
	}
	page := visibleText(string(render(t, reports.WriteHTML, doc)))
	_, first, ok := strings.Cut(page, "What to do first:")
	if !ok || !strings.HasPrefix(strings.Join(strings.Fields(first), " "), "fix held_duplicate in concurrent-duplicates") {
		t.Errorf("the first step is not the held duplicates:%s", first[:min(len(first), 200)])
	}
}
