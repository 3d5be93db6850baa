package reports_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/scenarios"
)

func TestHTMLStructure(t *testing.T) {
	out := string(render(t, reports.WriteHTML, fixture()))
	if n := strings.Count(out, `<tr class="strategy">`); n != 3 {
		t.Errorf("matrix has %d strategy rows; want 3", n)
	}
	if n := strings.Count(out, `<figure class="timeline">`); n != 2 {
		t.Errorf("%d timeline blocks; want 2, one per timeline", n)
	}
	if n := strings.Count(out, `<section class="cell `); n != 5 {
		t.Errorf("%d evidence sections; want 5, one per cell that did not pass", n)
	}
	for _, want := range []string{
		`<td class="v-fail unexpected"`, `<td class="v-pass unexpected"`, `<td class="v-inconclusive"`, `<td class="v-pass" title=`,
		`<div class="lane-name">client</div>`, `<div class="lane-name">proxy / fault</div>`,
		`<div class="lane-name">replica 1 server</div>`, `<div class="lane-name">replica 2 server</div>`,
		`<div class="lane-name">Postgres ledger</div>`, `<div class="lane-name">Redis record</div>`,
		"a7: fault redis-cut-after-commit", "a9 · 201 · ch-8 · replayed", "after the run: done · 201 · ch-8 · TTL 24h0m0s",
		"ch-8 · 9.90 · seq 5 · by a8", "no record found in Redis after the run",
		html.EscapeString(reports.Explain("store_desync").What), html.EscapeString(reports.Explain("status_contract").Avoid),
		"12 runs: 6 pass, 5 fail, 1 inconclusive",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// TestHTMLChargeAtServerEnd: ch-8 was made by a8, whose handler ended at 36 ms
// on a span of 10..42 ms: 81.25 %.
func TestHTMLChargeAtServerEnd(t *testing.T) {
	out := string(render(t, reports.WriteHTML, fixture()))
	if !regexp.MustCompile(`class="bar charge dup" style="left:81.25%;`).MatchString(out) {
		t.Error("charge ch-8 is not placed at the server end of a8")
	}
}

// external finds anything that would make the page fetch something.
var external = regexp.MustCompile(`(?i)<script|<link|<iframe|<img|<object|<embed|\bsrc\s*=|@import|url\(|https?://`)

func TestHTMLIsSelfContained(t *testing.T) {
	out := string(render(t, reports.WriteHTML, fixture()))
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
	out := string(render(t, reports.WriteHTML, doc))
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
	out := string(render(t, reports.WriteHTML, reports.Document{Results: []scenarios.Result{}}))
	if !strings.Contains(out, "every cell as declared") || !strings.HasSuffix(strings.TrimSpace(out), "</html>") {
		t.Errorf("empty document:\n%s", out)
	}
}
