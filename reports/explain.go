package reports

import (
	"fmt"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// Explanation tells a reader what an anomaly means, why the strategies that
// show it do, and what avoids it. Every field is plain text.
type Explanation struct {
	Name  string // the anomaly name as the checker reports it
	Title string // a few words
	What  string // what happened, in domain words
	Why   string // why it happens, in terms of the built-in strategies
	Avoid string // which strategy or technique avoids it
	// Cause is why it happens in one sentence that names no strategy: a
	// demo says it, then the flaw of the strategy it shows.
	Cause string
}

// WhyFor is why the anomaly happens with one strategy: the anomaly's cause,
// then the strategy's mechanism and flaw, as the strategy catalog says them.
func (e Explanation) WhyFor(strategy string) string {
	s, err := design.Lookup(strategy)
	if err != nil || e.Cause == "" {
		return e.Why
	}
	flaw := s.Flaw
	if flaw == "" {
		flaw = "none declared"
	}
	return fmt.Sprintf("%s Here %s: %s; its flaw: %s.", e.Cause, s.Name, s.Mechanism, flaw)
}

// Explain returns the explanation of an anomaly, as its definition in the
// checker's catalog gives it; an unknown name gets a generic one that still
// names it.
func Explain(anomaly check.Anomaly) Explanation {
	d := check.Define(anomaly)
	return Explanation{Name: string(anomaly), Title: d.Title, What: d.What, Why: d.Why, Avoid: d.Avoid, Cause: d.Cause}
}
