package reports_test

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/history"
)

// getsetPoints are the points of a check-then-act strategy's request.
var getsetPoints = []string{"send", "after-check", "before-commit", "after-commit", "before-store-response"}

// checkThenAct is a planted exploration of two requests that each check
// the key when sent and store it at their last step: a request sent while
// the other is past its send and not past its last step double-charges;
// one sent after the other finished is answered at once, replayed.
func checkThenAct() explore.Result {
	res := explore.Result{Target: "redis-getset", Case: "duplicate", Requests: 2, Preemptions: -1}
	n := len(getsetPoints)
	var walk func(steps []explore.Step, at, want [2]int, lost bool)
	walk = func(steps []explore.Step, at, want [2]int, lost bool) {
		if at == want {
			res.Runs = append(res.Runs, plantedRun(steps, lost))
			return
		}
		for r := range 2 {
			if at[r] == want[r] {
				continue
			}
			next, w, l := at, want, lost
			if at[r] == 0 { // sent: it checks the key
				other := at[1-r]
				if other == n {
					w[r] = 1 // the other finished: replayed at once
				}
				l = l || other > 0 && other < n
			}
			next[r]++
			walk(append(steps[:len(steps):len(steps)], explore.Step{Request: r, From: getsetPoints[at[r]]}), next, w, l)
		}
	}
	walk(nil, [2]int{}, [2]int{n, n}, false)
	return res
}

func plantedRun(steps []explore.Step, lost bool) explore.Run {
	run := explore.Run{Execution: explore.Execution{Steps: steps}, Class: explore.ClassReplayed,
		Outcome: explore.Outcome{Statuses: []int{201, 201}}}
	for _, s := range steps {
		run.Order = append(run.Order, s.Request)
	}
	if lost {
		run.Class, run.Outcome.Anomalies = string(check.DoubleCharge), []check.Anomaly{check.DoubleCharge}
		run.Outcome.Detail = "charged twice"
	}
	return run
}

func explorePage(t *testing.T, res explore.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := reports.WriteExploreHTML(&b, []explore.Result{res}, "--strategy "+res.Target); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// latticeState is a state as the page draws it: its title's A and B, and
// its class.
var latticeState = regexp.MustCompile(`<g><title>A(\d+) B(\d+), [^<]*</title><circle class="(?:node n-(\w+)|n-(none))"`)

// legendClass is an outcome in the page's legend: colour, count, name.
var legendClass = regexp.MustCompile(`<li class="class"><svg[^>]*><rect[^>]*fill="(#[0-9a-f]{6})"/></svg><span class="n">(\d+)</span> <span><strong>([^<]+)</strong>`)

// TestExploreHTMLDrawsTheRace: the page of a check-then-act race draws a
// state per node of the lattice, marks lost exactly the states the
// lattice finds lost (the square past both sends, before either stores),
// counts the orders of each outcome in its legend, and says where the
// race is lost: a send while the other is past its send and not past its
// last step, the check-then-act window.
func TestExploreHTMLDrawsTheRace(t *testing.T) {
	res := checkThenAct()
	page := explorePage(t, res)
	l := explore.LatticeOf(res.Runs)
	drawn := map[[2]int]string{}
	for _, m := range latticeState.FindAllStringSubmatch(page, -1) {
		i, _ := strconv.Atoi(m[1])
		j, _ := strconv.Atoi(m[2])
		drawn[[2]int{i, j}] = m[3] + m[4]
	}
	if want := (len(l.A) + 1) * (len(l.B) + 1); len(drawn) != want || want != 36 {
		t.Errorf("%d states drawn; want one per node of the %dx%d lattice", len(drawn), len(l.A)+1, len(l.B)+1)
	}
	lost := 0
	for j, row := range l.Nodes {
		for i, n := range row {
			if got := drawn[[2]int{i, j}]; n.Lost() != (got == "lost") || n.Safe() != (got == "safe") {
				t.Errorf("A%d B%d drawn %q; the lattice has it safe %v, lost %v", i, j, got, n.Safe(), n.Lost())
			}
			if n.Lost() {
				lost++
			}
		}
	}
	if drawn[[2]int{1, 1}] != "lost" || drawn[[2]int{0, 0}] != "open" || drawn[[2]int{5, 0}] != "safe" || lost < 16 {
		t.Errorf("the race: A1 B1 %s, A0 B0 %s, A5 B0 %s, %d lost; want lost, open, safe and the square past both sends",
			drawn[[2]int{1, 1}], drawn[[2]int{0, 0}], drawn[[2]int{5, 0}], lost)
	}
	counts := res.Classes()
	legend := legendClass.FindAllStringSubmatch(page, -1)
	if len(legend) != 2 || counts["double_charge"] < 200 || counts["replayed"] != 2 {
		t.Fatalf("legend %v; orders %v", legend, counts)
	}
	colours := map[string]string{}
	for _, m := range legend {
		if n, _ := strconv.Atoi(m[2]); n != counts[m[3]] {
			t.Errorf("legend: %s %d orders; want %d", m[3], n, counts[m[3]])
		}
		colours[m[1]] = m[3]
	}
	if len(colours) != 2 {
		t.Errorf("two classes share a colour: %v", colours)
	}
	for _, m := range regexp.MustCompile(`<line x1="[^"]*" y1="[^"]*" x2="[^"]*" y2="[^"]*" stroke="(#[0-9a-f]{6})"`).FindAllStringSubmatch(page, -1) {
		if colours[m[1]] == "" {
			t.Errorf("a step drawn in %s, which the legend does not name", m[1])
		}
	}
	for _, want := range []string{
		"B&#39;s step 1 (send) while A is at A1 to A4 (past send, not yet past before-store-response)",
		"A&#39;s step 1 (send) while B is at B1 to B4 (past send, not yet past before-store-response)",
		fmt.Sprintf("%d of the %d failing orders enter the lost region", counts["double_charge"], counts["double_charge"]),
		"Double charge: one key, several ledger charges",
		"<code>idemchaos explore --strategy redis-getset --case duplicate --order AAAABABBBB</code>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if n := strings.Count(page, `<tr><td class="o">`); n != len(res.Runs) {
		t.Errorf("%d orders in the table of every order; want %d", n, len(res.Runs))
	}
	through := 0 // the orders that send B while A is at A1: all double-charge, all entering the lost region there
	for _, run := range res.Runs {
		if len(run.Order) > 1 && run.Order[0] == 0 && run.Order[1] == 1 {
			through++
		}
	}
	title := fmt.Sprintf(`<g class="e"><title>B&#39;s step 1 (send), A1 B0 to A1 B1: %d orders: double_charge %d; the lost region is entered here by %d failing orders</title>`,
		through, through, through)
	if !strings.Contains(page, title) {
		t.Errorf("the step into A1 B1 is not titled with its orders: want %s", title)
	}
}

// TestExploreHTMLAllSafe: an exploration where every order holds draws
// every state reached safe, none lost or open, and says so.
func TestExploreHTMLAllSafe(t *testing.T) {
	res := checkThenAct()
	for k := range res.Runs {
		res.Runs[k] = plantedRun(res.Runs[k].Steps, false)
	}
	res.Target = "pg-tx"
	page := explorePage(t, res)
	for _, m := range latticeState.FindAllStringSubmatch(page, -1) {
		if st := m[3] + m[4]; st != "safe" {
			t.Errorf("A%s B%s drawn %s in an exploration where every order holds", m[1], m[2], st)
		}
	}
	if !strings.Contains(page, "Every state is safe") || strings.Contains(page, `id="shortest"`) || !strings.Contains(page, `<header class="st-pass">`) {
		t.Error("an exploration where every order holds does not read as one")
	}
}

// TestExploreHTMLEscapes: names and details from the data are text, never
// markup, in the page and in the lattice's titles and labels.
func TestExploreHTMLEscapes(t *testing.T) {
	res := checkThenAct()
	res.Target = `<script>alert(1)</script>`
	res.Runs[0].Steps[0].From = `"><img src=x onerror=alert(2)>`
	res.Runs[1].Class = `<b>odd</b>`
	res.Runs[2].Outcome.Detail = `</td><script>alert(3)</script>`
	res.Errors = []string{`<i>not run</i>`}
	page := explorePage(t, res)
	for _, bad := range []string{"<script>", "<img", "<b>odd", "<i>not run"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page carries %q as markup", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "&lt;b&gt;odd&lt;/b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
}

// TestExploreHTMLThreeRequests: three requests have no lattice of two
// axes: the page says so and still lists every order.
func TestExploreHTMLThreeRequests(t *testing.T) {
	res := checkThenAct()
	res.Requests = 3
	res.Runs[0].Steps = append(res.Runs[0].Steps, explore.Step{Request: 2, From: "send"})
	page := explorePage(t, res)
	if strings.Contains(page, `<svg class="grid"`) || !strings.Contains(page, "this exploration scheduled 3") {
		t.Error("three requests: a lattice drawn, or no word why not")
	}
	if n := strings.Count(page, `<tr><td class="o">`); n != len(res.Runs) {
		t.Errorf("%d orders listed; want %d", n, len(res.Runs))
	}
}

// TestExploreTerminalSaysTheWindow: the terminal grid, too, says by which
// steps the failing orders enter the lost region.
func TestExploreTerminalSaysTheWindow(t *testing.T) {
	var b bytes.Buffer
	if err := reports.WriteExplore(&b, checkThenAct(), "--strategy redis-getset", reports.View{Width: 120}); err != nil {
		t.Fatal(err)
	}
	want := "  B's step 1 (send) while A is at A1 to A4 (past send, not yet past before-store-response): "
	if !strings.Contains(b.String(), want) {
		t.Errorf("the terminal does not say where the race is lost:\n%s", b.String())
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if len([]rune(line)) > 120 {
			t.Errorf("a line of %d columns: %q", len([]rune(line)), line)
		}
	}
}

// TestExploreHTMLNothingRun: an exploration whose orders could not be run
// reads inconclusive, says why, and draws no lattice.
func TestExploreHTMLNothingRun(t *testing.T) {
	page := explorePage(t, explore.Result{Target: "pg-tx", Case: "duplicate", Requests: 2, Errors: []string{"AB: the execution ended after 1 choices"}})
	for _, want := range []string{`<header class="st-inconclusive">`, "not run: AB: the execution ended after 1 choices", "No order could be run"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(page, `<svg class="grid"`) {
		t.Error("a lattice drawn with no order run")
	}
}

// TestExploreHTMLCases: several cases share one page: the header gives
// their summary and the worst verdict, a line per case links to its
// section, and each section has its own heading, lattice and anchors.
func TestExploreHTMLCases(t *testing.T) {
	race := checkThenAct()
	safe := checkThenAct()
	for k := range safe.Runs {
		safe.Runs[k] = plantedRun(safe.Runs[k].Steps, false)
	}
	safe.Case = "mismatch"
	var b bytes.Buffer
	if err := reports.WriteExploreHTML(&b, []explore.Result{safe, race}, "--strategy redis-getset"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<header class="st-broke">`,
		"<span>" + template.HTMLEscapeString(explore.Summary([]explore.Result{safe, race})) + "</span></h1>",
		`<a href="#case-1-case">`, `<a href="#case-2-case">`,
		`<section class="case" id="case-1-case">`, `<section class="case" id="case-2-case">`,
		`<h2 class="case st-pass">`, `<h2 class="case st-broke">`,
		`<section id="case-1-lattice">`, `<section id="case-2-lattice">`, `<section id="case-2-shortest">`,
		"<span>" + template.HTMLEscapeString(safe.Sentence()) + "</span></h2>",
		"<span>" + template.HTMLEscapeString(race.Sentence()) + "</span></h2>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page of two cases does not carry %q", want)
		}
	}
	if n := strings.Count(page, `<svg class="grid"`); n != 2 {
		t.Errorf("%d lattices drawn; want one per case", n)
	}
	if strings.Contains(page, `id="case-1-shortest"`) || strings.Contains(page, `<h2>The lattice`) {
		t.Error("a holding case shows a failing order, or a case's sections are not under its heading")
	}
	if one := explorePage(t, race); strings.Contains(one, `class="case`) || !strings.Contains(one, `<section id="lattice">`) {
		t.Error("a page of one case is drawn as a page of several")
	}
	if err := reports.WriteExploreHTML(&b, nil, ""); err == nil {
		t.Error("a page of no case was written")
	}
}

// TestExploreHTMLShowsTheProbe: the shortest failing order says what the
// probe sent after the claim timeout got, as the terminal does.
func TestExploreHTMLShowsTheProbe(t *testing.T) {
	res := checkThenAct()
	for k := range res.Runs {
		res.Runs[k].Probe = &history.Attempt{Status: 409}
	}
	if page := explorePage(t, res); !strings.Contains(page, "Then a probe of the key, sent after the claim timeout, got 409.") {
		t.Error("the page does not say what the probe got")
	}
}

// TestExploreHTMLKill: a kill case has one order (A dies, B runs alone
// after it), and the page says so rather than calling it a replay.
func TestExploreHTMLKill(t *testing.T) {
	res := checkThenAct()
	res.Case, res.Runs = "kill@after-commit", res.Runs[:1]
	if page := explorePage(t, res); !strings.Contains(page, "B, its retry, runs alone after it") || strings.Contains(page, "(a replay)") {
		t.Error("a kill case's page does not say why it has one order")
	}
}
