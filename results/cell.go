package results

import (
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Cell aggregates the seeds of one (strategy, scenario).
type Cell struct {
	Strategy, Scenario string
	Results            []scenarios.Result
}

// Cells groups results by (strategy, scenario), in first-seen order.
func Cells(rs []scenarios.Result) []Cell {
	var out []Cell
	at := map[[2]string]int{}
	for _, r := range rs {
		k := [2]string{r.Strategy, r.Scenario}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Cell{Strategy: r.Strategy, Scenario: r.Scenario})
		}
		out[i].Results = append(out[i].Results, r)
	}
	return out
}

// Service reports whether the cell is of a user's own service: it must
// pass, and there is no catalog to speak of.
func (c Cell) Service() bool { return len(c.Results) > 0 && c.Results[0].Service }

// Power sums the power of the cell's seeds (overlaps and rounds; the
// target and aim per seed): ok false when its scenario hunts no race in
// rounds.
func (c Cell) Power() (scenarios.Power, bool) {
	var sum scenarios.Power
	ok := false
	for _, r := range c.Results {
		if r.Power == nil {
			continue
		}
		ok = true
		sum.Overlaps += r.Power.Overlaps
		sum.Rounds += r.Power.Rounds
		sum.Target, sum.Aim = r.Power.Target, r.Power.Aim
	}
	sum.Detectable = scenarios.Detectable(sum.Overlaps)
	return sum, ok
}

// Verdict is the cell's overall verdict: fail if any seed failed, else
// inconclusive if any was, else pass.
func (c Cell) Verdict() scenarios.Verdict {
	v := scenarios.Pass
	for _, r := range c.Results {
		switch {
		case r.Verdict == scenarios.Fail:
			return scenarios.Fail
		case r.Verdict == scenarios.Inconclusive:
			v = scenarios.Inconclusive
		}
	}
	return v
}

// AsExpected reports whether every seed matched the catalog's declaration.
func (c Cell) AsExpected() bool {
	for _, r := range c.Results {
		if !r.AsExpected {
			return false
		}
	}
	return true
}

// Coverage is how many of the cell's seeds exercised what its scenario is
// about.
func (c Cell) Coverage() scenarios.Coverage { return scenarios.CoverageOf(c.Results) }

// Anomalies sums anomaly counts over the seeds.
func (c Cell) Anomalies() map[check.Anomaly]int {
	sum := map[check.Anomaly]int{}
	for _, r := range c.Results {
		for k, v := range r.Anomalies {
			sum[k] += v
		}
	}
	return sum
}

// Overcharged sums the money overcharged over the seeds.
func (c Cell) Overcharged() int64 {
	var m int64
	for _, r := range c.Results {
		m += r.Overcharged
	}
	return m
}
