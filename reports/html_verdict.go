package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"slices"
	"strconv"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// headline is the top of the page: the verdict, what it means and what to
// do first.
type headline struct {
	State hState
	Title string
	Lines []string
	// NotRun counts the scenarios that could not run against a user's
	// service ("3 scenarios could not run against it"; "": none); each
	// medium says where to read why.
	NotRun string
	First  *firstStep
}

// firstStep points at the one cell to open first.
type firstStep struct {
	Lead, Code, Anchor, Name, Rest, Avoid, Repro string
}

// tally counts cells by state, in matrix order.
type tally struct {
	by    map[string][]results.Cell
	cells []results.Cell
}

func tallyOf(cells []results.Cell) tally {
	t := tally{by: map[string][]results.Cell{}, cells: cells}
	for _, c := range cells {
		k := stateOf(c).Key
		t.by[k] = append(t.by[k], c)
	}
	return t
}

func (t tally) n(s hState) int { return len(t.by[s.Key]) }

// caught are the cells caught as declared: on every seed, or (varies) on
// the seeds where their anomalies showed.
func (t tally) caught() []results.Cell {
	return append(slices.Clone(t.by[hCaught.Key]), t.by[hVaries.Key]...)
}

// headlineOf sums up the page; anchors names each cell's section.
func headlineOf(t tally, anchors map[[2]string]string, service bool, subj subject, skipped int) headline {
	if service {
		return serviceHeadline(t, anchors, subj, skipped)
	}
	bad := t.n(hBroke) + t.n(hMissed)
	switch {
	case bad > 0:
		h := headline{State: hBroke, Title: plural(bad, "cell") + " not as declared",
			Lines: []string{fmt.Sprintf("%d broke, %d missed; besides, %d caught as declared, %d passed, %d inconclusive.",
				t.n(hBroke), t.n(hMissed), len(t.caught()), t.n(hPass), t.n(hUnsure))}}
		if t.n(hBroke) == 0 {
			h.State = hMissed
		}
		first := append(append([]results.Cell(nil), t.by[hBroke.Key]...), t.by[hMissed.Key]...)[0]
		h.First = stepTo(first, anchors, "open")
		return h
	case t.n(hUnsure) > 0:
		return headline{State: hUnsure, Title: plural(t.n(hUnsure), "cell") + " inconclusive",
			Lines: []string{fmt.Sprintf("Nothing else is off: %d caught as declared, %d passed. An inconclusive cell proved nothing.",
				len(t.caught()), t.n(hPass))},
			First: stepTo(t.by[hUnsure.Key][0], anchors, "open")}
	case len(t.cells) == 0:
		return headline{State: hUnsure, Title: "Nothing ran", Lines: []string{"The document holds no results."}}
	}
	h := headline{State: hPass, Title: "Every cell as declared"}
	caught := t.caught()
	if len(caught) == 0 {
		h.Lines = []string{"Every cell passed, as the catalog declares."}
		return h
	}
	flawed, clean := strategiesBy(t)
	line := fmt.Sprintf("The harness works: %s caught in %s, each where the catalog declares it",
		counted(len(flawed), "flawed strategy", "flawed strategies"), plural(len(caught), "cell"))
	if len(clean) > 0 {
		line += "; " + strings.Join(clean, " and ") + " passed every scenario"
	}
	h.Lines = []string{line + "."}
	h.First = stepTo(caught[0], anchors, "nothing to fix. To see how idempotency breaks, open")
	return h
}

// strategiesBy splits the strategies into those caught somewhere and those
// that passed every cell.
func strategiesBy(t tally) (flawed, clean []string) {
	caught, order, allPass := map[string]bool{}, []string{}, map[string]bool{}
	for _, c := range t.cells {
		if _, seen := allPass[c.Strategy]; !seen {
			order, allPass[c.Strategy] = append(order, c.Strategy), true
		}
		st := stateOf(c)
		caught[c.Strategy] = caught[c.Strategy] || st == hCaught || st == hVaries
		allPass[c.Strategy] = allPass[c.Strategy] && st == hPass
	}
	for _, s := range order {
		switch {
		case caught[s]:
			flawed = append(flawed, s)
		case allPass[s]:
			clean = append(clean, s)
		}
	}
	return flawed, clean
}

func serviceHeadline(t tally, anchors map[[2]string]string, subj subject, skipped int) headline {
	ran := len(t.cells)
	notRun := ""
	if skipped > 0 {
		notRun = plural(skipped, subj.unit) + " could not run against it"
	}
	broke, pass := sBroke, sPass
	if subj.client {
		broke, pass = cBroke, cPass
	}
	switch {
	case t.n(broke) > 0:
		h := headline{State: broke, Title: fmt.Sprintf("Your %s broke in %d of %s", subj.noun, t.n(broke), plural(ran, subj.unit)),
			NotRun: notRun}
		if t.n(sUnsure) > 0 {
			h.Lines = []string{plural(t.n(sUnsure), subj.unit) + " inconclusive besides."}
		}
		h.First = worstStep(t.by[broke.Key], anchors)
		return h
	case t.n(sUnsure) > 0:
		return headline{State: sUnsure, Title: fmt.Sprintf("Your %s: %d of %s inconclusive", subj.noun, t.n(sUnsure), plural(ran, subj.unit)),
			Lines: []string{"Nothing broke, but an inconclusive " + subj.unit + " proved nothing."}, NotRun: notRun,
			First: stepTo(t.by[sUnsure.Key][0], anchors, "open")}
	}
	return headline{State: pass, Title: fmt.Sprintf("Your %s passed every %s", subj.noun, subj.unit),
		Lines: []string{plural(ran, subj.unit) + " ran; " + subj.held + "."}, NotRun: notRun}
}

// stepTo points at a cell: its first finding, or why it proved nothing.
func stepTo(c results.Cell, anchors map[[2]string]string, lead string) *firstStep {
	s := &firstStep{Lead: lead, Anchor: anchors[[2]string{c.Strategy, c.Scenario}], Name: c.Strategy + " / " + c.Scenario}
	rs, _ := shown(c)
	if len(rs) == 0 {
		return s
	}
	r := rs[0]
	s.Repro = r.Repro
	switch {
	case len(r.Findings) > 0:
		s.Rest = oneLine(r.Findings[0].Detail)
	case len(r.Assumptions) > 0:
		s.Rest = "it proved nothing: " + oneLine(r.Assumptions[0])
	case r.Verdict == scenarios.Pass:
		s.Rest = "the flaw was not caught (" + declarationOf(r) + ")"
	}
	return s
}

// worstStep points at the broken scenario with the gravest anomaly (money
// first, then holds, then the contract: check.ByUrgency) and says how to
// avoid it.
func worstStep(cells []results.Cell, anchors map[[2]string]string) *firstStep {
	for _, a := range check.ByUrgency() {
		for _, c := range cells {
			for _, r := range c.Results {
				if r.Anomalies[a] == 0 {
					continue
				}
				s := &firstStep{Lead: "fix", Code: string(a), Anchor: anchors[[2]string{c.Strategy, c.Scenario}],
					Name: c.Scenario, Avoid: Explain(a).Avoid, Repro: r.Repro}
				for _, f := range r.Findings {
					if f.Anomaly == a {
						s.Rest = oneLine(f.Detail)
						break
					}
				}
				return s
			}
		}
	}
	return stepTo(cells[0], anchors, "open")
}

// counted is "1 try", "3 tries": n with the word's singular or plural.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// subject is what a page of a user's own code judges: a service (the
// scenarios run against it) or a client (client mode's runs of it).
type subject struct {
	noun, unit, held string
	client           bool
}

// subjectOf is the cells' subject: a client when every one is a run of
// client mode.
func subjectOf(cells []results.Cell) subject {
	for _, c := range cells {
		if !scenarios.IsClientScenario(c.Scenario) {
			return subject{noun: "service", unit: "scenario", held: "no invariant broke"}
		}
	}
	if len(cells) == 0 {
		return subject{noun: "service", unit: "scenario", held: "no invariant broke"}
	}
	return subject{noun: "client", unit: "run", held: "it kept its half of the contract", client: true}
}
