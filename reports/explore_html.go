package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
)

//go:embed explore.html.tmpl
var exploreSource string

// exploreTemplate escapes everything that comes from the data: it is text,
// never markup.
var exploreTemplate = template.Must(template.New("explore").Parse(exploreSource))

// explorePage is the page of an exploration: the header (one case's
// sentence, or the summary of several with a line per case) and a section
// per case.
type explorePage struct {
	Title, Facts string
	State        hState
	Errors       []string
	Cases        []exploreCase
	// Multi says the page holds several cases: each gets a heading of its
	// own, below the summary.
	Multi bool
}

// exploreCase is one case's part of the page; ID prefixes its anchors.
type exploreCase struct {
	ID, Title, Facts string
	State            hState
	Errors           []string
	Classes          []exploreClass
	Lattice          *latticeView
	// NoLattice says why no lattice is drawn.
	NoLattice string
	Shortest  *orderView
	Varying   []orderRow
	Orders    []orderRow
	Nested    bool // under a case heading: its sections' headings one level down
}

// orderView is one order as columns, a request's steps each, one step a
// row in the order they were released.
type orderView struct {
	Order, Answers, Detail, Replay string
	// Probe is what a probe of the key got after the claim timeout, when
	// the order sent one.
	Probe    string
	Class    exploreClass
	Requests []string
	Rows     []orderStep
}

type orderStep struct {
	N     int
	Cells []string // one per request: the point it left, "" for the others
}

// orderRow is one order in the table of every order.
type orderRow struct {
	Order, Answers, Detail, Varied string
	Class                          exploreClass
	Steps                          int
}

// exploreStates are how an exploration's verdict reads.
var exploreStates = map[scenarios.Verdict]hState{
	scenarios.Pass:         {"pass", "holds", "every order held"},
	scenarios.Fail:         {"broke", "broke", "an order broke an invariant every time it ran"},
	scenarios.Inconclusive: {"inconclusive", "inconclusive", "no order broke an invariant every time, but one varied or could not be run"},
}

// WriteExploreHTML renders an exploration as one self-contained HTML page
// (inline CSS and SVG, no script, no external reference). For each case:
// what it proved in a sentence, the bound, the lattice of two requests
// (A's steps across, B's down, each step coloured by the outcomes of the
// orders through it, each state by whether they all hold, all fail or
// both), the shortest failing order as columns with the line that replays
// it and the probe it sent, the orders that varied, and every order with
// its outcome. Several cases share one page under their summary, a line
// each linking to its section. target is the flags that name the target in
// the replay line ("--strategy redis-getset").
func WriteExploreHTML(w io.Writer, res []explore.Result, target string) error {
	if len(res) == 0 {
		return fmt.Errorf("html: no case was explored")
	}
	if err := exploreTemplate.Execute(w, explorePageOf(res, target)); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

func explorePageOf(res []explore.Result, target string) explorePage {
	p := explorePage{Multi: len(res) > 1}
	for i, r := range res {
		c := exploreCaseOf(r, target)
		if p.Multi {
			c.ID, c.Nested = fmt.Sprintf("case-%d-", i+1), true
		}
		p.Cases = append(p.Cases, c)
	}
	if !p.Multi {
		c := p.Cases[0]
		p.Title, p.Facts, p.State, p.Errors = c.Title, c.Facts, c.State, c.Errors
		return p
	}
	p.Title, p.State = explore.Summary(res), exploreStates[worstOf(res)]
	orders := 0
	var took time.Duration
	for _, r := range res {
		orders += len(r.Runs)
		took += r.Took
	}
	p.Facts = fmt.Sprintf("%s in %s run in %s; each case below, with its lattice", plural(len(res), "case"),
		plural(orders, "order"), scenarios.ShortDuration(took))
	return p
}

// worstOf is the verdict of several cases: broken if one is, else
// inconclusive if one is, else pass.
func worstOf(res []explore.Result) scenarios.Verdict {
	v := scenarios.Pass
	for _, r := range res {
		switch r.Verdict() {
		case scenarios.Fail:
			return scenarios.Fail
		case scenarios.Inconclusive:
			v = scenarios.Inconclusive
		}
	}
	return v
}

func exploreCaseOf(res explore.Result, target string) exploreCase {
	classes := classesOf(res)
	p := exploreCase{Title: res.Sentence(), State: exploreStates[res.Verdict()], Errors: res.Errors, Classes: classes,
		Facts: fmt.Sprintf("%s run in %s, %d again to check they repeat · a request waits on another after %s (%s)",
			plural(len(res.Runs), "order"), scenarios.ShortDuration(res.Took), res.Rechecked,
			scenarios.ShortDuration(res.Bound), res.BoundHow)}
	p.Lattice = latticeOf(res, classes)
	switch {
	case p.Lattice != nil:
	case res.Requests > 2:
		p.NoLattice = fmt.Sprintf("The lattice is drawn for two requests; this exploration scheduled %d: its orders are listed below.", res.Requests)
	case len(res.Runs) == 0:
		p.NoLattice = "No order could be run: there is no lattice of orders to draw."
	case strings.HasPrefix(res.Case, "kill@"):
		p.NoLattice = "A's process dies at the point and B, its retry, runs alone after it: one order, no lattice to draw."
	default:
		p.NoLattice = "One order was run (a replay): there is no lattice of orders to draw."
	}
	if failing := res.Failing(); len(failing) > 0 {
		p.Shortest = orderViewOf(failing[0], res, target)
	}
	for _, r := range res.Varying() {
		p.Varying = append(p.Varying, orderRowOf(r))
	}
	runs := slices.Clone(res.Runs)
	slices.SortFunc(runs, func(a, b explore.Run) int { return strings.Compare(a.Order.String(), b.Order.String()) })
	for _, r := range runs {
		p.Orders = append(p.Orders, orderRowOf(r))
	}
	return p
}

func orderViewOf(run explore.Run, res explore.Result, target string) *orderView {
	v := &orderView{Order: run.Order.String(), Class: classOf(run.Class), Answers: answers(run.Outcome.Statuses),
		Detail: run.Outcome.Detail, Replay: ExploreRepro(target, res, run.Order)}
	if run.Probe != nil {
		v.Probe = probeAnswer(*run.Probe)
	}
	for r := range res.Requests {
		v.Requests = append(v.Requests, explore.Names[r:r+1])
	}
	for k, s := range run.Steps {
		row := orderStep{N: k + 1, Cells: make([]string, res.Requests)}
		row.Cells[s.Request] = s.From
		if s.Waited {
			row.Cells[s.Request] += " (waits)"
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func orderRowOf(run explore.Run) orderRow {
	return orderRow{Order: run.Order.String(), Class: classOf(run.Class), Answers: answers(run.Outcome.Statuses),
		Detail: run.Outcome.Detail, Varied: strings.Join(run.Varied, ", "), Steps: len(run.Steps)}
}

// answers writes each attempt's answer, by its request's name when it
// has one: "A 201, B 409" (none: "-").
func answers(statuses []int) string {
	parts := make([]string, len(statuses))
	for r, s := range statuses {
		name, answer := strconv.Itoa(r+1), "-"
		if r < len(explore.Names) {
			name = explore.Names[r : r+1]
		}
		if s != 0 {
			answer = strconv.Itoa(s)
		}
		parts[r] = name + " " + answer
	}
	return strings.Join(parts, ", ")
}
