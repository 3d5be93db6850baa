package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

//go:embed html.tmpl
var htmlSource string

// htmlTemplate escapes everything that comes from the data: it is text,
// never markup.
var htmlTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"ms":      msText,
	"money":   Money,
	"explain": Explain,
	"join":    func(ss []string) string { return strings.Join(ss, ", ") },
	"flags":   attemptFlags,
}).Parse(htmlSource))

type htmlPage struct {
	Mark, Outcome, Run string
	Service            bool // every cell is of a user's own service
	Skipped            []Skip
	Adapted            []Adapted
	Scenarios          []string
	Rows               []htmlRow
	Summary            Summary
	Cells              []htmlCell
	Latency            []htmlLatency
}

// htmlLatency is one row of the latency table, with bar widths relative to
// the slowest p99 on the page.
type htmlLatency struct {
	Latency
	P50Width, P99Width float64 // percent
}

func latencyRows(ls []Latency) []htmlLatency {
	slowest := 0.0
	for _, l := range ls {
		slowest = max(slowest, l.P99)
	}
	out := make([]htmlLatency, len(ls))
	for i, l := range ls {
		out[i] = htmlLatency{Latency: l}
		if slowest > 0 {
			out[i].P50Width, out[i].P99Width = 100*l.P50/slowest, 100*l.P99/slowest
		}
	}
	return out
}

type htmlRow struct {
	Strategy string
	Cells    []htmlMatrixCell
}

type htmlMatrixCell struct {
	Present                    bool
	Text, Title, Class, Anchor string
}

// htmlCell is the evidence section of one cell that did not pass.
type htmlCell struct {
	Anchor, Strategy, Scenario, State, Class, Declaration string
	Seeds                                                 []htmlSeed
	More                                                  int
	Anomalies                                             []check.Anomaly
}

type htmlSeed struct {
	Seed                    uint64
	State, Anomalies, Repro string
	Overcharged             int64
	Findings                []check.Finding
	MoreFindings            int
	Assumptions             []string
	Timelines               []tlView
}

// WriteHTML renders doc as one self-contained HTML page (inline CSS, no
// script, no external reference): the colour-coded matrix, the summary and,
// per cell that did not pass, its findings, a timeline of each offending key
// across client, proxy, replicas, Postgres and Redis, and what each anomaly
// means.
func WriteHTML(w io.Writer, doc Document) error {
	if err := htmlTemplate.Execute(w, pageOf(doc)); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

func pageOf(doc Document) htmlPage {
	cells := Cells(doc.Results)
	p := htmlPage{Summary: Summarize(doc.Results), Run: runLine(doc), Latency: latencyRows(doc.Latency),
		Service: services(cells), Skipped: doc.Skipped, Adapted: adaptations(cells)}
	p.Mark, p.Outcome = outcome(cells)
	strategies, scens := axes(cells)
	p.Scenarios = scens
	at := map[[2]string]int{}
	for i, c := range cells {
		at[[2]string{c.Strategy, c.Scenario}] = i
		if rs, _ := shown(c); len(rs) > 0 {
			p.Cells = append(p.Cells, htmlCellOf(c, anchor(i)))
		}
	}
	for _, st := range strategies {
		row := htmlRow{Strategy: st}
		for _, sc := range scens {
			i, ok := at[[2]string{st, sc}]
			if !ok {
				row.Cells = append(row.Cells, htmlMatrixCell{})
				continue
			}
			row.Cells = append(row.Cells, matrixCellOf(cells[i], anchor(i)))
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}

func anchor(i int) string { return fmt.Sprintf("cell-%d", i) }

// runLine states what was run, from the document's own fields.
func runLine(doc Document) string {
	return strings.Join(append([]string{"idemchaos"}, runParts(doc, identity)...), " · ")
}

// cellClass colours a cell by verdict and flags one not as declared.
func cellClass(c Cell) string {
	class := "v-" + string(c.Verdict())
	if classify(c) == stUnexpected && !c.service() {
		class += " unexpected"
	}
	return class
}

func matrixCellOf(c Cell, anchor string) htmlMatrixCell {
	m := htmlMatrixCell{Present: true, Text: cellText(c), Class: cellClass(c)}
	if rs, _ := shown(c); len(rs) > 0 {
		m.Anchor = anchor
	}
	lines := []string{c.Strategy + " / " + c.Scenario, declarationOf(c.Results[0])}
	for _, r := range c.Results {
		lines = append(lines, fmt.Sprintf("seed %d: %s", r.Seed, seedState(r)))
	}
	if o := c.Overcharged(); o > 0 {
		lines = append(lines, Money(o)+" overcharged")
	}
	m.Title = strings.Join(lines, "\n")
	return m
}

func htmlCellOf(c Cell, anchor string) htmlCell {
	state := map[status]string{stCaught: "caught as declared", stInconclusive: "inconclusive",
		stUnexpected: "NOT as declared", stPass: "pass"}[classify(c)]
	if c.service() && classify(c) == stUnexpected {
		state = "failed"
	}
	h := htmlCell{Anchor: anchor, Strategy: c.Strategy, Scenario: c.Scenario, State: state,
		Class: cellClass(c), Declaration: declarationOf(c.Results[0]), Anomalies: sortedKeys(c.Anomalies())}
	rs, more := shown(c)
	h.More = more
	for _, r := range rs {
		fs, left := r.Findings, 0
		if len(fs) > maxFindings {
			fs, left = fs[:maxFindings], len(fs)-maxFindings
		}
		s := htmlSeed{Seed: r.Seed, State: seedState(r), Anomalies: counts(r.Anomalies, check.Anomaly.String, ", "),
			Repro: r.Repro, Overcharged: r.Overcharged, Findings: fs, MoreFindings: left, Assumptions: r.Assumptions}
		for _, t := range r.Timelines {
			s.Timelines = append(s.Timelines, layoutTimeline(t))
		}
		h.Seeds = append(h.Seeds, s)
	}
	return h
}
