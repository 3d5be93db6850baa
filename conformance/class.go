package conformance

import (
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
)

// Class is what a cell of the table says about a library.
type Class string

// The classes, from best to worst.
const (
	// Pass: every seed passed.
	Pass Class = "pass"
	// Skipped: the scenario cannot run against the target (the reason is
	// listed).
	Skipped Class = "skipped"
	// Inconclusive: a seed proved nothing, and none found an anomaly.
	Inconclusive Class = "inconclusive"
	// Deviates: only documented deviations from the IETF draft: another
	// status than the profile's (a mismatch, a missing key), a duplicate
	// held until the original finished instead of 409 at once.
	Deviates Class = "deviates"
	// BreaksMoney: a double charge, a lost ack, a replay of another
	// payload, a poisoned key: money or the client's knowledge of it is
	// wrong.
	BreaksMoney Class = "breaks money"
)

// ClassOf says which class an anomaly falls in: a deviation when its
// definition says it breaks only the contract's letter, else it breaks
// money.
func ClassOf(a check.Anomaly) Class {
	if check.Define(a).Deviation {
		return Deviates
	}
	return BreaksMoney
}

// Cell is one cell of the table: a row (target under a profile) and a
// scenario, over the seeds run.
type Cell struct {
	Row, Scenario string
	Class         Class
	Seeds         int                   // seeds run
	Failed        int                   // seeds that did not pass
	Inconclusive  int                   // seeds that proved nothing
	Shown         map[check.Anomaly]int // per anomaly, the seeds that showed it
	Total         map[check.Anomaly]int // per anomaly, its count summed over seeds
	Reason        string                // why it was skipped
}

// Judge folds the results of one row and scenario into its cell.
func Judge(row, scenario string, rs []scenarios.Result) Cell {
	c := Cell{Row: row, Scenario: scenario, Class: Pass, Seeds: len(rs), Shown: map[check.Anomaly]int{}, Total: map[check.Anomaly]int{}}
	for _, r := range rs {
		switch r.Verdict {
		case scenarios.Fail:
			c.Failed++
		case scenarios.Inconclusive:
			c.Inconclusive++
		}
		for a, n := range r.Anomalies {
			if n > 0 {
				c.Shown[a]++
				c.Total[a] += n
			}
		}
	}
	for a := range c.Shown {
		if cl := ClassOf(a); cl == BreaksMoney || c.Class != BreaksMoney {
			c.Class = cl
		}
	}
	if len(c.Shown) == 0 && c.Inconclusive > 0 {
		c.Class = Inconclusive
	}
	return c
}

// Anomalies are the cell's anomalies in the checker's order.
func (c Cell) Anomalies() []check.Anomaly {
	var out []check.Anomaly
	for _, a := range check.Anomalies() {
		if c.Shown[a] > 0 {
			out = append(out, a)
		}
	}
	return out
}

// Timing reports whether an anomaly showed in some seeds but not all:
// the library's behaviour there depends on timing.
func (c Cell) Timing() bool {
	for _, n := range c.Shown {
		if n < c.Seeds {
			return true
		}
	}
	return false
}

// anomalyNamed is the anomaly of a name.
func anomalyNamed(name string) check.Anomaly { return check.Anomaly(name) }
