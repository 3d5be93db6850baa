package reports_test

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

func page(t *testing.T, doc results.Document) string {
	t.Helper()
	return string(render(t, reports.WriteHTML, doc))
}

// matrixCells are the page's matrix cells: the class and what they say.
var matrixCell = regexp.MustCompile(`<td class="(st-[a-z]+)" title="([^/"]+) / ([^:"]+):[^"]*">(?:<a href="([^"]*)">)?<span class="w"><svg class="ic"><use href="#i-([a-z]+)"/></svg>([a-z]+)</span>`)

// TestHTMLMatrixSaysEachStateInWordsAndShape: a flawed strategy caught as
// declared reads "caught" under a diamond, not like a failure; a cell not
// as declared reads "broke" (it failed) or "missed" (it passed) under
// their own icons, each linking to its evidence.
func TestHTMLMatrixSaysEachStateInWordsAndShape(t *testing.T) {
	out := page(t, fixture())
	want := map[string]string{ // strategy/scenario: the state
		"none/dropped-response":                "caught",
		"none/redis-fault-after-commit":        "missed",
		"redis-setnx/dropped-response":         "pass",
		"redis-setnx/redis-fault-after-commit": "caught",
		"pg-tx/dropped-response":               "inconclusive",
		"pg-tx/redis-fault-after-commit":       "broke",
	}
	got := map[string]string{}
	for _, m := range matrixCell.FindAllStringSubmatch(out, -1) {
		cell, class, icon, word := m[2]+"/"+m[3], m[1], m[5], m[6]
		if class != "st-"+word || icon != word {
			t.Errorf("%s: class %s, icon %s, word %s: one state, one class, one icon, one word", cell, class, icon, word)
		}
		if word != "pass" && m[4] != "#"+cell {
			t.Errorf("%s links to %q; want its evidence #%s", cell, m[4], cell)
		}
		got[cell] = word
	}
	for cell, w := range want {
		if got[cell] != w {
			t.Errorf("%s reads %q; want %q", cell, got[cell], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d matrix cells; want %d", len(got), len(want))
	}
}

// TestHTMLLegendHasOneIconPerMeaning: each state's icon is defined once,
// shown once in the legend, and no two states share one.
func TestHTMLLegendHasOneIconPerMeaning(t *testing.T) {
	out := page(t, fixture())
	legend := out[strings.Index(out, `<div class="legend">`):]
	legend = legend[:strings.Index(legend, "</div>")]
	icons := regexp.MustCompile(`<use href="#(i-[a-z]+)"/>`).FindAllStringSubmatch(legend, -1)
	seen := map[string]bool{}
	for _, m := range icons {
		if seen[m[1]] {
			t.Errorf("icon %s stands for two meanings in the legend", m[1])
		}
		seen[m[1]] = true
		if n := strings.Count(out, `<symbol id="`+m[1]+`"`); n != 1 {
			t.Errorf("icon %s defined %d times", m[1], n)
		}
	}
	if len(seen) != 5 {
		t.Errorf("legend icons %v; want pass, caught, broke, missed, inconclusive", seen)
	}
}

// TestHTMLHasNoEmoji: CI images have no colour-emoji font; marks are
// inline SVG.
func TestHTMLHasNoEmoji(t *testing.T) {
	for name, doc := range map[string]results.Document{"matrix": fixture(), "service": serviceDoc()} {
		for _, r := range page(t, doc) {
			if r >= 0x1F000 || r >= 0x2600 && r <= 0x27BF || r >= 0x2B00 && r <= 0x2BFF || r == 0xFE0F || unicode.Is(unicode.So, r) {
				t.Errorf("%s: emoji or symbol %U (%c) on the page", name, r, r)
				break
			}
		}
	}
}

// TestHTMLHeadlineSaysWhatToDoFirst: the verdict, then a link to the cell
// to open first with its first finding and its repro.
func TestHTMLHeadlineSaysWhatToDoFirst(t *testing.T) {
	out := page(t, fixture())
	head := out[strings.Index(out, "<header"):strings.Index(out, "</header>")]
	for _, want := range []string{
		`<h1><svg class="ic"><use href="#i-broke"/></svg>2 cells not as declared</h1>`,
		`open <a href="#pg-tx/redis-fault-after-commit">pg-tx / redis-fault-after-commit</a>: a concurrent duplicate got 500`,
		"Re-run it: <code>idemchaos run --strategy pg-tx --scenario redis-fault-after-commit --seed 1</code>",
	} {
		if !strings.Contains(head, want) {
			t.Errorf("headline lacks %q:\n%s", want, head)
		}
	}
	var declared []scenarios.Result // the fixture as declared: no missed, broke or inconclusive cell
	for _, r := range fixture().Results {
		if r.Class().NotAsDeclared() || r.Verdict == scenarios.Inconclusive {
			continue
		}
		declared = append(declared, r)
	}
	out = page(t, results.Document{Results: declared})
	head = out[strings.Index(out, "<header"):strings.Index(out, "</header>")]
	for _, want := range []string{
		"Every cell as declared", "The harness works: 2 flawed strategies caught in 2 cells, each where the catalog declares it",
		`nothing to fix. To see how idempotency breaks, open <a href="#none/dropped-response">none/dropped-response</a>`,
	} {
		if !strings.Contains(strings.ReplaceAll(head, " / ", "/"), want) {
			t.Errorf("headline lacks %q:\n%s", want, head)
		}
	}
}

// TestHTMLServiceHeadlineNamesTheGravestAnomaly: a broken service is told
// what to fix first and how to avoid it.
func TestHTMLServiceHeadlineNamesTheGravestAnomaly(t *testing.T) {
	doc := serviceDoc()
	doc.Results[1].Verdict, doc.Results[1].Anomalies = scenarios.Fail, anoms("status_contract", 3)
	doc.Results[1].Findings = []check.Finding{{Anomaly: check.StatusContract, Detail: "got 200 for a mismatch"}}
	out := visibleText(page(t, doc))
	for _, want := range []string{
		"Your service broke in 2 of 3 scenarios",
		"What to do first: fix double_charge in dropped-response : 2 charges for one key",
		"How to avoid it: " + reports.Explain(check.DoubleCharge).Avoid,
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestHTMLFindingsSayThingsOnce: a finding's sentence already names its
// key and the money; the page adds neither again.
func TestHTMLFindingsSayThingsOnce(t *testing.T) {
	doc := fixture()
	r := &doc.Results[0]
	r.Findings = []check.Finding{{Anomaly: check.DoubleCharge, Key: "16cc3f75-aaaa", Money: 9000,
		Attempts: []string{"a1", "a2"}, Charges: []string{"ch-1", "ch-2"},
		Detail: "key 16cc3f75…: 2 charges (ch-1 by attempt a1 and ch-2 by attempt a2) on account acc-1 for one key; 90.00 overcharged"}}
	for range 6 {
		r.Findings = append(r.Findings, check.Finding{Anomaly: check.ReplayMismatch, Key: "k", Detail: "another answer"})
	}
	out := visibleText(page(t, doc))
	for _, twice := range []string{"16cc3f75-aaaa", "key 16cc3f75…: key", "(90.00", "90.00) ", "attempts a1, a2", "charges ch-1, ch-2", "JSON"} {
		if strings.Contains(out, twice) {
			t.Errorf("page says %q", twice)
		}
	}
	if !strings.Contains(out, "and 2 more findings of this seed, not shown here") {
		t.Error("the findings left out are not counted")
	}
}

// TestHTMLAnchorsAreStableUniqueAndURLSafe: every cell, seed and timeline
// has an id made of its names, no two alike, every link lands on one.
func TestHTMLAnchorsAreStableUniqueAndURLSafe(t *testing.T) {
	doc := fixture()
	for i := range doc.Results {
		if doc.Results[i].Strategy == "pg-tx" {
			doc.Results[i].Strategy = "pg tx/é" // a name a user's service could have
		}
	}
	out := page(t, doc)
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(out, -1) {
		ids[html.UnescapeString(m[1])]++
	}
	safe := regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	for id, n := range ids {
		if n > 1 || !safe.MatchString(id) {
			t.Errorf("id %q used %d times; want once, URL-safe", id, n)
		}
	}
	for _, id := range []string{"none/dropped-response", "none/dropped-response/seed-1", "none/dropped-response/seed-1/key-k-1",
		"redis-setnx/redis-fault-after-commit/seed-1/key-k-7", "pg-tx--/redis-fault-after-commit", "anomaly-double_charge"} {
		if ids[id] != 1 {
			t.Errorf("no id %q", id)
		}
	}
	for _, m := range regexp.MustCompile(`href="#([^"]*)"`).FindAllStringSubmatch(out, -1) {
		if ids[m[1]] == 0 {
			t.Errorf("link #%s lands nowhere", m[1])
		}
	}
}

// TestHTMLBoundsTheTimelines: a cell draws its first timelines in full and
// sums the others up in a line each; seeds past the first five get a line.
func TestHTMLBoundsTheTimelines(t *testing.T) {
	var rs []scenarios.Result
	for seed := uint64(1); seed <= 7; seed++ {
		r := res("none", "dropped-response", seed, scenarios.Fail, true, "double_charge")
		r.Anomalies = anoms("double_charge", 1)
		for range 3 {
			r.Timelines = append(r.Timelines, droppedTimeline())
		}
		rs = append(rs, r)
	}
	out := page(t, results.Document{Results: rs})
	if n := strings.Count(out, `<figure class="tl"`); n != 2 {
		t.Errorf("%d timelines drawn; want the first 2 of a cell caught as declared", n)
	}
	if n := strings.Count(out, "<li>key <code>k-1</code>: 2 tries · 2 charges · faults: drop-response (a1)</li>"); n != 3*5-2 {
		t.Errorf("%d timelines summarised; want %d", n, 3*5-2)
	}
	for _, seed := range []string{"<th>seed 6</th>", "<th>seed 7</th>"} {
		if !strings.Contains(out, seed) {
			t.Errorf("the seeds past the fifth are not listed: no %s", seed)
		}
	}
}

// external finds anything that would make the page fetch something.
var external = regexp.MustCompile(`(?i)<script|<link|<iframe|<img|<object|<embed|\bsrc\s*=|@import|url\(|https?://`)

func TestHTMLIsSelfContained(t *testing.T) {
	out := page(t, fixture())
	if m := external.FindAllString(out, -1); len(m) > 0 {
		t.Errorf("external references or scripts in the page: %q", m)
	}
	for _, href := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(out, -1) {
		if !strings.HasPrefix(href[1], "#") {
			t.Errorf("link %q leaves the page", href[1])
		}
	}
}

// TestHTMLEscapesData puts markup and a URL into every kind of data field:
// it must all render as text.
func TestHTMLEscapesData(t *testing.T) {
	doc := fixture()
	xss := `<script>alert(1)</script>`
	for i := range doc.Results {
		r := &doc.Results[i]
		if r.Strategy == "redis-setnx" && len(r.Timelines) > 0 {
			tl := &r.Timelines[0]
			tl.Attempts[1].Body = xss + ` see https://evil.example/x`
			tl.Attempts[0].Err = `"><img src=x onerror=alert(2)>`
			tl.Key = `k"><b>`
			r.Findings[0].Detail = xss
		}
	}
	doc.Results[0].Strategy = `<i onmouseover="x">`
	out := page(t, doc)
	for _, raw := range []string{xss, `<img src=x`, `<b>`, `<i onmouseover`} {
		if strings.Contains(out, raw) {
			t.Errorf("data %q reached the page as markup", raw)
		}
	}
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the response body is not shown as text")
	}
	stripped := out
	for _, data := range []string{xss + ` see https://evil.example/x`, `"><img src=x onerror=alert(2)>`} {
		stripped = strings.ReplaceAll(stripped, html.EscapeString(data), "")
	}
	if m := external.FindAllString(stripped, -1); len(m) > 0 {
		t.Errorf("beyond the escaped data, external references: %q", m)
	}
}

func TestHTMLEmptyDocument(t *testing.T) {
	out := page(t, results.Document{Results: []scenarios.Result{}})
	if !strings.Contains(out, "Nothing ran") || !strings.HasSuffix(strings.TrimSpace(out), "</html>") {
		t.Errorf("empty document:\n%s", out)
	}
}

// TestHTMLVaryingCellHasItsOwnWord: a cell whose anomalies its strategy
// declares as showing on some seeds only reads "varies" under its own
// icon, with its own legend entry, and counts with the cells caught as
// declared; a page without one has no such entry.
func TestHTMLVaryingCellHasItsOwnWord(t *testing.T) {
	if strings.Contains(page(t, fixture()), `href="#i-varies"`) {
		t.Error("a page without a varying cell shows the varies icon")
	}
	doc := fixture()
	for i, r := range doc.Results {
		if r.Strategy == "none" && r.Scenario == "dropped-response" {
			doc.Results[i].Expected = nil // declared as varying, not as failing
		}
	}
	out := page(t, doc)
	words := map[string]string{}
	for _, m := range matrixCell.FindAllStringSubmatch(out, -1) {
		words[m[2]+"/"+m[3]] = m[1] + " " + m[5] + " " + m[6]
	}
	if got := words["none/dropped-response"]; got != "st-varies varies varies" {
		t.Errorf("none/dropped-response reads %q; want class, icon and word varies", got)
	}
	legend := out[strings.Index(out, `<div class="legend">`):]
	legend = legend[:strings.Index(legend, "</div>")]
	if !strings.Contains(legend, `href="#i-varies"`) || !strings.Contains(legend, "on some seeds only") {
		t.Errorf("the legend says nothing of varies: %s", legend)
	}
	if !strings.Contains(out, "besides, 2 caught as declared") {
		t.Errorf("the varying cell is not counted with those caught as declared")
	}
}

// TestHTMLNotRunNamesTheCell: a built-in matrix's skipped cells say which
// strategy each is, not only the scenario: the same scenario is skipped
// for several strategies.
func TestHTMLNotRunNamesTheCell(t *testing.T) {
	doc := fixture()
	doc.Skipped = []results.Skip{{Strategy: "innodb-tx", Scenario: "pg-standby-lag", Reason: "needs the harness's replicated Postgres"},
		{Strategy: "innodb-get-lock", Scenario: "pg-standby-lag", Reason: "needs the harness's replicated Postgres"}}
	out := page(t, doc)
	for _, want := range []string{"<strong>innodb-tx / pg-standby-lag</strong>", "<strong>innodb-get-lock / pg-standby-lag</strong>"} {
		if !strings.Contains(out, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
}
