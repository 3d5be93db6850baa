package results

import (
	"slices"
	"sort"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Counts counts cells: by verdict, and by class against the catalog.
type Counts struct {
	Cells, Pass, Fail, Inconclusive int
	Caught, Unexpected, Missed      int
}

func (n *Counts) add(r scenarios.Result, c scenarios.Class) {
	n.Cells++
	switch r.Verdict {
	case scenarios.Pass:
		n.Pass++
	case scenarios.Fail:
		n.Fail++
	default:
		n.Inconclusive++
	}
	switch c {
	case scenarios.Caught:
		n.Caught++
	case scenarios.Unexpected:
		n.Unexpected++
	case scenarios.Missed:
		n.Missed++
	}
}

// StrategyTally is one strategy's share of a soak.
type StrategyTally struct {
	Counts
	Rounds    int                   // rounds in which it ran
	Anomalies map[check.Anomaly]int // cells that showed each anomaly
	lastRound int
}

// Tally accumulates a soak's results as cells finish.
type Tally struct {
	Strategies []string
	Per        map[string]*StrategyTally
	Total      Counts
	InRound    map[int]int // round -> cells finished in it
	Results    []scenarios.Result
	scenRank   map[string]int
	round      map[uint64]int // seed -> round
}

// NewTally is an empty tally of the strategies and scenarios.
func NewTally(strategies, scens []string) *Tally {
	t := &Tally{Strategies: strategies, scenRank: map[string]int{}, Per: map[string]*StrategyTally{},
		InRound: map[int]int{}, round: map[uint64]int{}}
	for i, sc := range scens {
		t.scenRank[sc] = i
	}
	for _, st := range strategies {
		t.Per[st] = &StrategyTally{Anomalies: map[check.Anomaly]int{}}
	}
	return t
}

// Add records a finished cell of round.
func (t *Tally) Add(r scenarios.Result, round int) {
	c := r.Class()
	st := t.Per[r.Strategy]
	st.add(r, c)
	if st.lastRound != round {
		st.lastRound = round
		st.Rounds++
	}
	for name, n := range r.Anomalies {
		if n > 0 {
			st.Anomalies[name]++
		}
	}
	t.Total.add(r, c)
	t.InRound[round]++
	t.round[r.Seed] = round
	t.Results = append(t.Results, r)
}

// Sorted returns the results by round, then strategy and scenario order.
func (t *Tally) Sorted() []scenarios.Result {
	rank := map[string]int{}
	for i, st := range t.Strategies {
		rank[st] = i
	}
	out := slices.Clone(t.Results)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if t.round[a.Seed] != t.round[b.Seed] {
			return t.round[a.Seed] < t.round[b.Seed]
		}
		if a.Strategy != b.Strategy {
			return rank[a.Strategy] < rank[b.Strategy]
		}
		return t.scenRank[a.Scenario] < t.scenRank[b.Scenario]
	})
	return out
}
