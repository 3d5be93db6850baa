package reports

import (
	_ "embed"
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"html/template"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/load"
)

//go:embed bench.html.tmpl
var benchSource string

// benchTemplate escapes everything that comes from the data: it is text,
// never markup.
var benchTemplate = template.Must(template.New("bench").Parse(benchSource))

type benchPage struct {
	Title, Settings, Machine, Note, Legend string
	Rows                                   []benchRow
	Chart                                  bool
	Frame                                  chartFrame
	Ticks                                  []chartTick
	Columns                                []chartColumn
	Cards                                  []benchCard
}

// benchRow is one strategy in the summary table.
type benchRow struct {
	Strategy, Offered, Achieved, Errors, Anomalies string
	Sent, Duplicates, Missed                       int
	Percentiles                                    []string
}

// benchCard is one strategy: its chart, its figures per kind of answer and
// what went wrong.
type benchCard struct {
	Strategy, Stats, Errors, Anomalies, Statuses, Overcharged string
	Flawed, Erred                                             bool
	Hidden                                                    int
	Series                                                    []chartSeries
	Mix                                                       []mixSegment
	Kinds                                                     []benchKind
}

type benchKind struct {
	Label, From string
	Count       int64
	Percentiles []string
}

// WriteBenchHTML renders a bench document as one self-contained HTML page
// (inline CSS and SVG, no script, no external reference): the settings and
// machine, a summary row per strategy, then side by side per strategy its
// percentile curves on a latency scale shared by all, the split of its
// answers into first, replay and 409, and its figures.
func WriteBenchHTML(w io.Writer, doc results.Bench) error {
	if err := benchTemplate.Execute(w, benchPageOf(doc)); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

func benchPageOf(doc results.Bench) benchPage {
	h := doc.BenchHeader
	p := benchPage{Title: benchTitle(doc), Settings: strings.Join(benchSettings(h), " · "),
		Note: upperFirst(latencyNote(h)), Legend: anomalyLegend(), Columns: columns(), Frame: frame()}
	machine := benchWhen(h)
	if m := machineText(h.Machine); m != "" {
		machine = append([]string{"machine: " + m}, machine...)
	}
	p.Machine = strings.Join(machine, " · ")
	scale, ok := sharedScale(doc.Results)
	p.Chart = ok
	if ok {
		p.Ticks = scale.ticks()
	}
	for _, r := range doc.Results {
		p.Rows = append(p.Rows, benchRowOf(r))
		p.Cards = append(p.Cards, benchCardOf(r, scale, ok))
	}
	return p
}

func benchRowOf(r results.BenchResult) benchRow {
	return benchRow{Strategy: r.Strategy, Offered: fmt.Sprintf("%.1f", r.OfferedRPS), Achieved: fmt.Sprintf("%.1f", r.AchievedRPS),
		Sent: r.Sent, Duplicates: r.Duplicates, Missed: r.Missed, Percentiles: percentiles(r.LatencyOf(results.KindAll)),
		Errors: errorText(r), Anomalies: anomalyText(r)}
}

func benchCardOf(r results.BenchResult, s logScale, chart bool) benchCard {
	c := benchCard{Strategy: r.Strategy, Stats: throughputText(r), Flawed: anomalyTotal(r) > 0, Erred: errorText(r) != "-",
		Errors:    namedCounts(r.Errors, load.ErrorClasses(), identity),
		Anomalies: namedCounts(r.Anomalies, check.Names(), identity),
		Statuses:  namedCounts(r.Statuses, nil, identity), Mix: answerMix(r), Hidden: r.Hidden}
	if r.Overcharged > 0 {
		c.Overcharged = Money(r.Overcharged)
	}
	if chart {
		c.Series = seriesOf(s, r)
	}
	for _, k := range benchKinds {
		l := r.LatencyOf(k)
		c.Kinds = append(c.Kinds, benchKind{Label: kindLabel(k), From: fromLabel(k, r), Count: l.Count, Percentiles: percentiles(l)})
	}
	return c
}
