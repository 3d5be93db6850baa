package reports

import (
	"fmt"
	"github.com/idemchaos/idemchaos/results"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
)

// mark is how a matrix cell reads against its declaration over its seeds:
// the class that decides it (not as declared outweighs inconclusive, which
// outweighs caught, which outweighs passed) and on how many seeds.
type mark struct {
	class   scenarios.Class
	on, of  int  // seeds in that class, seeds run
	service bool // a user's service: no catalog, it must pass
	// varies says the cell's anomalies are ones its catalog entry says
	// show on some seeds only (scenarios.Varies): caught, marked "~".
	varies bool
	cell   results.Cell
}

func markOf(c results.Cell) mark {
	n := map[scenarios.Class]int{}
	for _, r := range c.Results {
		n[r.Class()]++
	}
	m := mark{of: len(c.Results), service: c.Service(), cell: c}
	switch {
	case n[scenarios.Unexpected] > 0:
		m.class, m.on = scenarios.Unexpected, n[scenarios.Unexpected]+n[scenarios.Missed]
	case n[scenarios.Missed] > 0:
		m.class, m.on = scenarios.Missed, n[scenarios.Missed]
	case n[scenarios.Unproven] > 0:
		m.class, m.on = scenarios.Unproven, n[scenarios.Unproven]
	case n[scenarios.Caught] > 0:
		m.class, m.on = scenarios.Caught, n[scenarios.Caught]
		m.varies = len(c.Results[0].Expected) == 0
	default:
		m.class, m.on = scenarios.Passed, m.of
	}
	return m
}

// tone is the emphasis the mark's words get.
func (m mark) tone() tone {
	switch m.class {
	case scenarios.Passed:
		return tonePass
	case scenarios.Caught:
		return toneCaught
	case scenarios.Unproven:
		return toneUnsure
	}
	return toneBroken
}

// seeds is " 3/20" (on 3 of the 20 seeds run) when more than one seed ran
// and the cell is not a plain pass.
func (m mark) seeds() string {
	if m.of < 2 || m.class == scenarios.Passed {
		return ""
	}
	return fmt.Sprintf(" %d/%d", m.on, m.of)
}

// exercised is " e3/20" (3 of the 20 seeds exercised what the scenario
// is about) when its scenario has an exercise fact; full, " exercised 3/20".
func (m mark) exercised(full bool) string {
	cov := m.cell.Coverage()
	switch {
	case cov.Of == 0:
		return ""
	case full:
		return " " + cov.String()
	}
	return fmt.Sprintf(" e%d/%d", cov.Exercised, cov.Of)
}

// codes lists the short names of the anomalies found over the seeds.
func (m mark) codes() []string {
	var out []string
	for _, a := range sortedKeys(m.cell.Anomalies()) {
		out = append(out, a.Short())
	}
	return out
}

// compact is the cell in a few columns: "pass", "dc rm" (caught as
// declared), "!!DC" (not as declared, or a user's service broke),
// "!!MISSED", "inconcl", with the seeds after.
func (m mark) compact() string { return m.compactWords() + m.exercised(false) }

func (m mark) compactWords() string {
	switch m.class {
	case scenarios.Passed:
		return "pass"
	case scenarios.Caught:
		return strings.Join(m.codes(), " ") + m.tilde() + m.seeds()
	case scenarios.Unproven:
		return "inconcl" + m.seeds()
	case scenarios.Missed:
		return "!!MISSED" + m.seeds()
	}
	return "!!" + strings.ToUpper(strings.Join(m.codes(), " ")) + m.seeds()
}

// tilde marks a cell whose anomalies show on some seeds only, as its
// catalog entry declares.
func (m mark) tilde() string {
	if m.varies {
		return "~"
	}
	return ""
}

// full is the cell in words, with the anomaly counts summed over the seeds:
// "caught dc=50 rm=70", "!!FAIL dc=3", "!!MISSED", "inconclusive".
func (m mark) full() string {
	word := map[scenarios.Class]string{scenarios.Passed: "pass", scenarios.Caught: "caught", scenarios.Unproven: "inconclusive",
		scenarios.Missed: "!!MISSED", scenarios.Unexpected: "!!FAIL"}[m.class]
	if m.varies {
		word = "varies"
	}
	if m.class == scenarios.Passed {
		return word + m.exercised(true)
	}
	s := word + m.seeds()
	sum := m.cell.Anomalies()
	for _, a := range sortedKeys(sum) {
		s += fmt.Sprintf(" %s=%d", a.Short(), sum[a])
	}
	return s + m.exercised(true)
}
