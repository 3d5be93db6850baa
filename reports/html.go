package reports

import (
	_ "embed"
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

//go:embed html.tmpl
var htmlSource string

// htmlTemplate escapes everything that comes from the data: it is text,
// never markup.
var htmlTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"slug": slug,
	"frag": fragment,
}).Parse(htmlSource))

type htmlPage struct {
	Run     string
	Head    headline
	Stats   []htmlStat
	Service bool
	// Noun is what the page judges: "service", or "client" for client
	// mode's runs; Unit what its columns are ("scenario", "run").
	Noun, Unit string
	Skipped    []results.Skip
	Adapted    []Adapted
	Scenarios  []string
	Rows       []htmlRow
	Legend     []hState
	Codes      []htmlCode
	Summary    results.Summary
	Money      string
	Groups     []htmlGroup
	Glossary   []Explanation
	Latency    []htmlLatency
	// Exercised: a cell counts the seeds that exercised its scenario.
	Exercised bool
	// Timelines: some finding has a timeline to draw (client mode's have
	// none: their evidence is the requests and what the client told).
	Timelines bool
}

// htmlStat is one count of the headline: cells in one state.
type htmlStat struct {
	State hState
	N     int
}

// htmlCode is one abbreviation of the matrix cells.
type htmlCode struct{ Short, Name string }

type htmlRow struct {
	Strategy string
	Cells    []htmlMatrixCell
}

type htmlMatrixCell struct {
	Present             bool
	State               hState
	Seeds, Counts, Href string
	Title               string
	// Exercised is "exercised 3/20" when the scenario counts what its
	// seeds exercised.
	Exercised string
}

// WriteHTML renders doc as one self-contained HTML page (inline CSS and
// SVG, no script, no external reference) for a person: the verdict and
// what to look at first, the matrix, the latency per strategy and, per cell
// that did not pass, its findings, the timelines of its first keys across
// client, network, replicas, Postgres and Redis with every fault drawn
// where it happened, and what each anomaly means.
func WriteHTML(w io.Writer, doc results.Document) error {
	if err := htmlTemplate.Execute(w, pageOf(doc)); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

func pageOf(doc results.Document) htmlPage {
	cells := results.Cells(doc.Results)
	service := services(cells)
	strategies, scens := axes(cells)
	a := anchors{}
	ids := map[[2]string]string{}
	for _, c := range cells {
		ids[[2]string{c.Strategy, c.Scenario}] = a.id(c.Strategy, c.Scenario)
	}
	t := tallyOf(cells)
	subj := subjectOf(cells)
	p := htmlPage{Run: runLine(doc), Service: service, Noun: subj.noun, Unit: subj.unit, Skipped: doc.Skipped, Adapted: adaptations(cells),
		Scenarios: scens, Legend: legendOf(service, subj.client, varying(cells)), Summary: results.Summarize(doc.Results),
		Latency: latencyRows(doc.Latency, strategies), Head: headlineOf(t, ids, service, subj, len(doc.Skipped))}
	p.Money = moneyIn(p.Summary.Overcharged, currencyOf(doc.Results))
	for _, s := range p.Legend {
		p.Stats = append(p.Stats, htmlStat{State: s, N: t.n(s)})
	}
	p.Groups = groupsOf(cells, ids, a, service)
	p.Glossary = glossaryOf(p.Groups)
	p.Codes = codesOf(cells)
	p.Exercised = measured(cells)
	p.Timelines = slices.ContainsFunc(doc.Results, func(r scenarios.Result) bool { return len(r.Timelines) > 0 })
	at := map[[2]string]results.Cell{}
	for _, c := range cells {
		at[[2]string{c.Strategy, c.Scenario}] = c
	}
	for _, st := range strategies {
		row := htmlRow{Strategy: st}
		for _, sc := range scens {
			c, ok := at[[2]string{st, sc}]
			if !ok {
				row.Cells = append(row.Cells, htmlMatrixCell{})
				continue
			}
			row.Cells = append(row.Cells, matrixCellOf(c, ids[[2]string{st, sc}]))
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}

// fragment links to an id of the page. The ids are made of slugs (see
// anchors), so the link needs no escaping, and keeps its slashes readable:
// #redis-sticky/db-fault-mid-request/seed-3.
func fragment(id string) template.URL {
	parts := strings.Split(id, "/")
	for i, p := range parts {
		parts[i] = slug(p)
	}
	return template.URL("#" + strings.Join(parts, "/"))
}

// codesOf lists the abbreviations the matrix uses, in the checker's order.
func codesOf(cells []results.Cell) []htmlCode {
	used := map[check.Anomaly]bool{}
	for _, c := range cells {
		for a := range c.Anomalies() {
			used[a] = true
		}
	}
	var out []htmlCode
	for _, a := range check.Anomalies() {
		if used[a] {
			out = append(out, htmlCode{Short: a.Short(), Name: string(a)})
		}
	}
	return out
}

// runLine states what was run, from the document's own fields.
func runLine(doc results.Document) string {
	return strings.Join(append([]string{"idemchaos"}, runParts(doc, identity)...), " · ")
}

func matrixCellOf(c results.Cell, anchor string) htmlMatrixCell {
	m := htmlMatrixCell{Present: true, State: stateOf(c), Counts: counts(c.Anomalies(), check.Anomaly.Short, " ")}
	bad := 0
	for _, r := range c.Results {
		if r.Verdict != scenarios.Pass {
			bad++
		}
	}
	if len(c.Results) > 1 && bad > 0 {
		m.Seeds = strconv.Itoa(bad) + "/" + strconv.Itoa(len(c.Results))
	}
	if rs, _ := shown(c); len(rs) > 0 {
		m.Href = anchor
	}
	lines := []string{c.Strategy + " / " + c.Scenario + ": " + m.State.Word, declarationOf(c.Results[0])}
	if m.Seeds != "" {
		lines = append(lines, m.Seeds+" seeds did not pass")
	}
	if o := c.Overcharged(); o > 0 {
		lines = append(lines, moneyIn(o, currencyOf(c.Results))+" overcharged")
	}
	if cov := c.Coverage(); cov.Of > 0 {
		m.Exercised = cov.String()
		lines = append(lines, cov.String()+": "+cov.What)
	}
	m.Title = strings.Join(lines, "\n")
	return m
}
