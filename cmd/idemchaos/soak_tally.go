package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// soakCounts counts cells.
type soakCounts struct {
	cells, pass, fail, inconclusive int
	caught, unexpected, missed      int
}

func (n *soakCounts) add(r scenarios.Result, c scenarios.Class) {
	n.cells++
	switch r.Verdict {
	case scenarios.Pass:
		n.pass++
	case scenarios.Fail:
		n.fail++
	default:
		n.inconclusive++
	}
	switch c {
	case scenarios.Caught:
		n.caught++
	case scenarios.Unexpected:
		n.unexpected++
	case scenarios.Missed:
		n.missed++
	}
}

// strategyTally is one strategy's share of a soak.
type strategyTally struct {
	soakCounts
	rounds    int // rounds in which it ran
	lastRound int
	anomalies map[check.Anomaly]int // cells that showed each anomaly
}

// tally accumulates a soak's results as cells finish.
type tally struct {
	strategies []string
	scenRank   map[string]int
	per        map[string]*strategyTally
	total      soakCounts
	inRound    map[int]int // round -> cells finished in it
	results    []scenarios.Result
	round      map[uint64]int // seed -> round
}

func newTally(strategies, scens []string) *tally {
	t := &tally{strategies: strategies, scenRank: map[string]int{}, per: map[string]*strategyTally{},
		inRound: map[int]int{}, round: map[uint64]int{}}
	for i, sc := range scens {
		t.scenRank[sc] = i
	}
	for _, st := range strategies {
		t.per[st] = &strategyTally{anomalies: map[check.Anomaly]int{}}
	}
	return t
}

// add records a finished cell of round and returns its class.
func (t *tally) add(r scenarios.Result, round int) scenarios.Class {
	c := r.Class()
	st := t.per[r.Strategy]
	st.add(r, c)
	if st.lastRound != round {
		st.lastRound = round
		st.rounds++
	}
	for name, n := range r.Anomalies {
		if n > 0 {
			st.anomalies[name]++
		}
	}
	t.total.add(r, c)
	t.inRound[round]++
	t.round[r.Seed] = round
	t.results = append(t.results, r)
	return c
}

// sorted returns the results by round, then strategy and scenario order.
func (t *tally) sorted() []scenarios.Result {
	rank := map[string]int{}
	for i, st := range t.strategies {
		rank[st] = i
	}
	out := slices.Clone(t.results)
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

// anomalyText lists the non-zero anomaly counts, sorted by name.
func anomalyText(m map[check.Anomaly]int) string {
	var parts []string
	for _, name := range sortedNames(m) {
		if m[name] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", name, m[name]))
		}
	}
	if len(parts) == 0 {
		return "no anomaly"
	}
	return strings.Join(parts, " ")
}

func sortedNames(m map[check.Anomaly]int) []check.Anomaly {
	return slices.Sorted(maps.Keys(m))
}
