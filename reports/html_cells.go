package reports

import (
	"github.com/idemchaos/idemchaos/results"
	"strconv"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Bounds on the page's evidence: the first timelines of a cell in full,
// the others summarised in a line each; the first seeds that did not pass
// in detail, the others in a line each.
const (
	fullTimelines       = 2 // per cell caught as declared
	fullTimelinesUrgent = 3 // per cell to look at: broke, missed, inconclusive
	htmlFindings        = 5 // per seed
)

// htmlGroup is a part of the evidence: the cells of one state.
type htmlGroup struct {
	ID, Title, Note string
	State           hState
	Cells           []htmlCell
}

// htmlCell is the evidence section of one cell that did not pass.
type htmlCell struct {
	Anchor, Strategy, Scenario, Declaration string
	State                                   hState
	Seeds                                   []htmlSeed
	Others                                  []seedLine
	Anomalies                               []anomalyRef
}

type htmlSeed struct {
	Anchor, State, Counts, Overcharged, Repro string
	Seed                                      uint64
	Findings                                  []htmlFinding
	MoreFindings                              int
	Assumptions                               []string
	Timelines                                 []tlView
	Summaries                                 []tlSummary
}

// htmlFinding is a finding's sentence, with a link to its key's timeline
// when the page draws it.
type htmlFinding struct {
	Anomaly, Detail, Timeline string
}

// seedLine is a seed that did not pass, beyond those detailed.
type seedLine struct {
	Seed          uint64
	State, Counts string
}

// tlSummary is a timeline not drawn: its key and a line of facts.
type tlSummary struct{ Key, Facts string }

type anomalyRef struct{ Name, Title, Anchor string }

// groupsOf sorts the cells that did not pass into the page's parts, those
// to look at first.
func groupsOf(cells []results.Cell, ids map[[2]string]string, a anchors, service bool) []htmlGroup {
	var groups []htmlGroup
	switch subj := subjectOf(cells); {
	case subj.client:
		groups = []htmlGroup{
			{ID: "broke", Title: "Broke", Note: "Runs where your client broke a rule of its half of the contract, with the evidence.", State: cBroke},
			{ID: "inconclusive", Title: "Inconclusive", Note: "Runs that proved nothing, and why.", State: sUnsure},
		}
	case service:
		groups = []htmlGroup{
			{ID: "broke", Title: "Broke", Note: "Scenarios where your service broke an invariant, with the evidence.", State: sBroke},
			{ID: "inconclusive", Title: "Inconclusive", Note: "Scenarios that proved nothing, and why.", State: sUnsure},
		}
	default:
		groups = []htmlGroup{
			{ID: "not-as-declared", Title: "Not as declared", Note: "Cells that differ from what the catalog declares: look at these.", State: hBroke},
			{ID: "inconclusive", Title: "Inconclusive", Note: "Cells that proved nothing, and why.", State: hUnsure},
			{ID: "caught", Title: "Caught as declared", State: hCaught,
				Note: "The flawed strategies failing where the catalog says they must: nothing to fix, each shows how its flaw breaks idempotency."},
		}
	}
	for _, c := range cells {
		st := stateOf(c)
		if rs, _ := shown(c); len(rs) == 0 {
			continue
		}
		for i := range groups {
			if groups[i].State == st || st == hMissed && groups[i].State == hBroke || st == hVaries && groups[i].State == hCaught {
				groups[i].Cells = append(groups[i].Cells, cellOf(c, st, ids[[2]string{c.Strategy, c.Scenario}], a))
			}
		}
	}
	var out []htmlGroup
	for _, g := range groups {
		if len(g.Cells) > 0 {
			out = append(out, g)
		}
	}
	return out
}

func cellOf(c results.Cell, st hState, id string, a anchors) htmlCell {
	h := htmlCell{Anchor: id, Strategy: c.Strategy, Scenario: c.Scenario, State: st, Declaration: declarationOf(c.Results[0])}
	for _, name := range sortedKeys(c.Anomalies()) {
		h.Anomalies = append(h.Anomalies, anomalyRef{Name: string(name), Title: Explain(name).Title, Anchor: "anomaly-" + slug(string(name))})
	}
	budget := fullTimelines
	if st != hCaught && st != hVaries {
		budget = fullTimelinesUrgent
	}
	for _, r := range c.Results {
		if r.Verdict == scenarios.Pass && r.AsExpected {
			continue
		}
		if len(h.Seeds) == maxSeedsShown {
			h.Others = append(h.Others, seedLine{Seed: r.Seed, State: seedState(r), Counts: counts(r.Anomalies, check.Anomaly.String, " ")})
			continue
		}
		s := seedOf(r, a.id(c.Strategy, c.Scenario, "seed-"+strconv.FormatUint(r.Seed, 10)), &budget, a)
		h.Seeds = append(h.Seeds, s)
	}
	return h
}

// seedOf details one seed; budget is how many timelines the cell still
// draws in full.
func seedOf(r scenarios.Result, id string, budget *int, a anchors) htmlSeed {
	s := htmlSeed{Anchor: id, Seed: r.Seed, State: seedState(r), Counts: counts(r.Anomalies, check.Anomaly.String, ", "),
		Repro: r.Repro, Assumptions: r.Assumptions}
	if r.Overcharged > 0 {
		s.Overcharged = moneyIn(r.Overcharged, r.Currency) + " overcharged"
	}
	drawn := map[string]string{}
	for _, t := range r.Timelines {
		if *budget == 0 || len(t.Attempts) == 0 && len(t.Charges) == 0 {
			s.Summaries = append(s.Summaries, tlSummary{Key: t.Key, Facts: storyOf(t).facts()})
			continue
		}
		*budget--
		tid := a.id(r.Strategy, r.Scenario, "seed-"+strconv.FormatUint(r.Seed, 10), "key-"+shortKey(t.Key))
		drawn[t.Key] = tid
		s.Timelines = append(s.Timelines, layoutTimeline(t, tid, r.Strategy))
	}
	fs := r.Findings
	if len(fs) > htmlFindings {
		fs, s.MoreFindings = fs[:htmlFindings], len(fs)-htmlFindings
	}
	for _, f := range fs {
		s.Findings = append(s.Findings, htmlFinding{Anomaly: string(f.Anomaly), Detail: oneLine(f.Detail), Timeline: drawn[scenarios.TimelineKey(f.Key)]})
	}
	return s
}

// shortKey is the first 8 characters of a key, for an anchor.
func shortKey(k string) string {
	if r := []rune(k); len(r) > 8 {
		return string(r[:8])
	}
	return k
}

// glossaryOf explains every anomaly the evidence names, in the checker's order.
func glossaryOf(groups []htmlGroup) []Explanation {
	named := map[check.Anomaly]int{}
	for _, g := range groups {
		for _, c := range g.Cells {
			for _, a := range c.Anomalies {
				named[check.Anomaly(a.Name)]++
			}
		}
	}
	var out []Explanation
	for _, a := range check.Anomalies() {
		if named[a] > 0 {
			out = append(out, Explain(a))
			delete(named, a)
		}
	}
	for _, a := range sortedNames(named) {
		out = append(out, Explain(a))
	}
	return out
}
