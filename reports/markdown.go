package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// WriteMarkdown renders doc as GitHub-flavoured Markdown, fit for a CI step
// summary: a title with the overall outcome, the strategy x scenario matrix,
// the summary and, per cell that did not pass or is not as declared, its
// first findings and repro lines. Text from the data is escaped.
func WriteMarkdown(w io.Writer, doc results.Document) error {
	var b strings.Builder
	cells := results.Cells(doc.Results)
	mark, text := outcome(cells)
	fmt.Fprintf(&b, "# idemchaos: %s %s\n\n", mark, text)
	mdRun(&b, doc)
	mdMatrix(&b, cells)
	mdSummary(&b, doc.Results)
	for _, sk := range doc.Skipped {
		fmt.Fprintf(&b, "- skipped %s / %s: %s\n", mdEscape(sk.Strategy), mdEscape(sk.Scenario), mdEscape(sk.Reason))
	}
	for _, a := range adaptations(cells) {
		for _, n := range a.Notes {
			fmt.Fprintf(&b, "- adapted %s: %s\n", mdEscape(a.Scenario), mdEscape(n))
		}
	}
	for _, c := range cells {
		if rs, _ := shown(c); len(rs) > 0 {
			mdCell(&b, c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdRun states what was run, from the document's own fields.
func mdRun(b *strings.Builder, doc results.Document) {
	if parts := runParts(doc, mdCode); len(parts) > 0 {
		fmt.Fprintf(b, "%s\n\n", strings.Join(parts, " · "))
	}
}

// mdMatrix writes the strategy x scenario table and its legend.
func mdMatrix(b *strings.Builder, cells []results.Cell) {
	strategies, scens := axes(cells)
	at := map[[2]string]results.Cell{}
	for _, c := range cells {
		at[[2]string{c.Strategy, c.Scenario}] = c
	}
	b.WriteString("| " + rowNoun(cells) + " |")
	for _, sc := range scens {
		b.WriteString(" " + mdEscape(sc) + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(scens)) + "\n")
	for _, st := range strategies {
		b.WriteString("| " + mdEscape(st) + " |")
		for _, sc := range scens {
			c, ok := at[[2]string{st, sc}]
			if !ok {
				b.WriteString(" – |")
				continue
			}
			b.WriteString(" " + mdEscape(cellText(c)) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + mdLegend(cells) + "\n")
}

// mdLegend explains the marks and the abbreviations that appear.
func mdLegend(cells []results.Cell) string {
	seen := map[check.Anomaly]bool{}
	var abbrevs []string
	for _, c := range cells {
		for _, name := range sortedKeys(c.Anomalies()) {
			if !seen[name] && name.Short() != string(name) {
				seen[name] = true
				abbrevs = append(abbrevs, mdEscape(name.Short())+" "+mdCode(string(name)))
			}
		}
	}
	s := "Cell: verdict, seeds that did not pass / seeds run, anomaly counts summed over seeds. " +
		"❗ unexpected: not what the catalog declares for this strategy; ❗ not caught: a flawed strategy passed; " +
		"⚠️ inconclusive: a run's own assumptions failed, nothing proved."
	if services(cells) {
		s = "Cell: verdict, seeds that did not pass / seeds run, anomaly counts summed over seeds. " +
			"⚠️ inconclusive: the run could not prove anything (its reason is listed below)."
	}
	if measured(cells) {
		s += " exercised 3/20: 3 of the 20 seeds did what the scenario is about (a pass on none is inconclusive)."
	}
	if len(abbrevs) > 0 {
		s += "\nAnomalies: " + strings.Join(abbrevs, ", ") + "."
	}
	return s + "\n"
}

// mdSummary writes the run counts and the money at stake.
func mdSummary(b *strings.Builder, rs []scenarios.Result) {
	s := results.Summarize(rs)
	if services(results.Cells(rs)) {
		fmt.Fprintf(b, "**%s**: %d pass, **%d fail**, %d inconclusive; %s overcharged in all.\n",
			plural(s.Cells, "run"), s.Pass, s.Fail, s.Inconclusive, Money(s.Overcharged))
		return
	}
	fmt.Fprintf(b, "**%s**: %d pass, %d fail, %d inconclusive; **%d not as declared**; %s overcharged in all.\n",
		plural(s.Cells, "run"), s.Pass, s.Fail, s.Inconclusive, s.Unexpected, Money(s.Overcharged))
}

// mdCell writes the evidence of one cell that did not pass.
func mdCell(b *strings.Builder, c results.Cell) {
	mark := map[status]string{stCaught: "❌ caught as declared", stInconclusive: "⚠️ inconclusive", stUnexpected: "❗ NOT as declared"}[classify(c)]
	if c.Service() && classify(c) == stUnexpected {
		mark = "❌ failed"
	}
	if mark == "" {
		mark = "✅ pass"
	}
	fmt.Fprintf(b, "\n## %s / %s: %s\n\n", mdEscape(c.Strategy), mdEscape(c.Scenario), mark)
	if c.Service() {
		fmt.Fprintf(b, "%s\n\n", declarationOf(c.Results[0]))
	} else {
		fmt.Fprintf(b, "%s\n\n", declaredAs(c.Results[0], mdAnomaly))
	}
	rs, more := shown(c)
	for _, r := range rs {
		fmt.Fprintf(b, "- **seed %d**: %s", r.Seed, mdEscape(seedState(r)))
		if a := counts(r.Anomalies, mdAnomaly, ", "); a != "" {
			b.WriteString("; " + a)
		}
		if r.Overcharged > 0 {
			b.WriteString("; " + Money(r.Overcharged) + " overcharged")
		}
		b.WriteString("\n")
		fs, left := firstFindings(r)
		for _, f := range fs {
			fmt.Fprintf(b, "  - %s: %s\n", mdAnomaly(f.Anomaly), mdEscape(strings.TrimPrefix(findingLine(f), string(f.Anomaly)+": ")))
		}
		if left > 0 {
			fmt.Fprintf(b, "  - … %d more findings in the JSON output\n", left)
		}
		for _, a := range r.Assumptions {
			fmt.Fprintf(b, "  - assumption not met: %s\n", mdEscape(oneLine(a)))
		}
		fmt.Fprintf(b, "  - repro: %s\n", mdCode(r.Repro))
	}
	if more > 0 {
		fmt.Fprintf(b, "- … %d more seeds in the JSON output\n", more)
	}
}

// mdActive are the characters that can start Markdown (or GitHub) syntax in
// running text: emphasis, code, links, HTML, tables, strikethrough, math.
const mdActive = "\\`*_[]<>|~&$#!"

// mdEscape makes data literal text on one line.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		if strings.ContainsRune(mdActive, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode wraps data in a code span whose fence is longer than any run of
// backticks inside it. A '|' would still end a table cell, so code spans
// are used outside the matrix only.
func mdCode(s string) string {
	s = oneLine(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdAnomaly is an anomaly's name as code.
func mdAnomaly(a check.Anomaly) string { return mdCode(string(a)) }

// rowNoun is what a matrix's rows are: strategies, or the clients of
// client mode's runs.
func rowNoun(cells []results.Cell) string {
	if subjectOf(cells).client {
		return "client"
	}
	return "strategy"
}
