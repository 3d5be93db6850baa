package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// coverNote begins the assumption Cover adds to a pass whose cell never
// exercised its scenario.
const coverNote = "not one seed of this cell exercised what the scenario is about"

// Coverage is how many seeds of a cell exercised its scenario's fact.
type Coverage struct {
	What      string
	Exercised int // seeds whose run exercised it
	Of        int // seeds that measured it
}

// String is "exercised 3/20".
func (c Coverage) String() string { return fmt.Sprintf("exercised %d/%d", c.Exercised, c.Of) }

// CoverageOf counts the results of one cell (one strategy and scenario,
// any seeds); Of 0 when its scenario has no exercise fact.
func CoverageOf(rs []Result) Coverage {
	var c Coverage
	for _, r := range rs {
		if r.Exercise == "" || r.Verdict == "" {
			continue
		}
		c.What, c.Of = r.Exercise, c.Of+1
		if r.Exercised {
			c.Exercised++
		}
	}
	return c
}

// Cover reads each cell's results (by strategy and scenario) together: a
// pass of a cell that no seed exercised (exercised 0/n) rests on nothing
// and becomes inconclusive; a pass Cover made inconclusive before (another
// share of the seeds) is a pass again once a seed of its cell exercised
// it. rs is not changed.
func Cover(rs []Result) []Result {
	out := slices.Clone(rs)
	cells := map[[2]string][]int{}
	for i, r := range out {
		k := [2]string{r.Strategy, r.Scenario}
		cells[k] = append(cells[k], i)
	}
	for _, idx := range cells {
		var group []Result
		for _, i := range idx {
			group = append(group, out[i])
		}
		cov := CoverageOf(group)
		for _, i := range idx {
			out[i] = covered(out[i], cov)
		}
	}
	return out
}

// covered is r read with its cell's coverage, afresh: a mark of an
// earlier Cover is undone first.
func covered(r Result, cov Coverage) Result {
	if r.Unexercised {
		r.Unexercised, r.Verdict = false, Pass
		r.Assumptions = slices.DeleteFunc(slices.Clone(r.Assumptions), func(s string) bool { return strings.HasPrefix(s, coverNote) })
	}
	if r.Verdict == Pass && cov.Of > 0 && cov.Exercised == 0 {
		r.Unexercised, r.Verdict = true, Inconclusive
		r.Assumptions = append(slices.Clone(r.Assumptions), fmt.Sprintf("%s (%s: %s)", coverNote, cov, cov.What))
	}
	r.AsExpected = matches(r)
	return r
}
