package scenarios

import (
	"fmt"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Failed is the result of a cell the harness could not run: inconclusive,
// with the environment's error as its reason.
func Failed(c Cell, err error) Result {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	return Result{Strategy: c.Strategy, Scenario: c.Scenario, Seed: c.Seed, Profile: c.Profile.Name, Replicas: c.Replicas,
		Verdict: Inconclusive, Anomalies: map[check.Anomaly]int{}, Assumptions: []string{"the cell could not run: " + msg},
		Error: msg, Repro: c.Repro(), Service: c.Service(), AsExpected: c.Service()}
}

// Judge checks a finished cell; it is pure, so a saved record judged again
// gives the same result.
func Judge(rec Record) Result {
	c, plan, obs, hidden, took := rec.Cell, rec.Plan, rec.Obs, rec.Hidden, rec.Took
	sc, err := c.Definition()
	if err != nil {
		return Result{Strategy: c.Strategy, Scenario: c.Scenario, Seed: c.Seed, Verdict: Inconclusive,
			Assumptions: []string{err.Error()}}
	}
	obs.History = check.Resolve(obs.History, obs.Ledger)
	u := c.under()
	expected, assume := u.expect(c, sc, plan)
	assume = withFunding(assume, plan)
	in := check.Input{History: obs.History, Ledger: obs.Ledger, Profile: c.Profile, TwoStores: rec.facts().TwoStores}
	u.input(&in, c)
	harnessInput(&in, plan, obs)
	retentionInput(&in, obs.Trace)
	currency := plan.Currency()
	in.Currency = currency
	rep := check.Run(in)
	res := Result{Strategy: c.Strategy, Scenario: sc.Name, Seed: c.Seed, Profile: c.Profile.Name, Replicas: c.Replicas,
		Anomalies: rep.Counts, Overcharged: rep.Overcharged, Currency: currency, Requests: len(obs.History.Attempts),
		DurationMS: took.Milliseconds(), Expected: expected, Faults: len(plan.Faults()),
		Findings: rep.Findings, Deviations: rep.Deviations, Holds: rep.Holds, Timelines: timelines(rep.Findings, obs, plan, sc.Gate), Repro: c.Repro(),
		Service: c.Service()}
	if c.Adapted != nil {
		res.Adapted = c.Adapted.Notes
	}
	res.Assumptions = append(assumeGeneric(obs, hidden), u.assumptions(obs)...)
	switch {
	case len(res.Assumptions) > 0:
		res.Verdict = Inconclusive
	case rep.Failed():
		res.Verdict = Fail
	default:
		if assume != nil {
			res.Assumptions = assume(obs)
		}
		res.Verdict = Pass
		if len(res.Assumptions) > 0 {
			res.Verdict = Inconclusive
		}
	}
	res.Exercise, res.Exercised = exercise(sc, obs)
	if c.Powered(sc) {
		judgePower(&res, c, sc, plan, obs)
	}
	if why := holdsAssumption(res.Holds); why != "" && res.Verdict == Pass {
		res.Verdict, res.Assumptions = Inconclusive, append(res.Assumptions, why)
	}
	if note := holdsNote(res.Holds); note != "" {
		res.Adapted = append(res.Adapted, note)
	}
	res.AsExpected = matches(res)
	return res
}

// judgePower counts what a race-hunting run against a service achieved: a
// pass below the target proves too little (inconclusive, with the count);
// a pass at it says what it rules out. Either says how its duplicates were
// placed in their first requests' charge (lags.go).
func judgePower(res *Result, c Cell, sc Scenario, plan workload.Plan, obs Observation) {
	goal := c.Goal(sc)
	p := PowerOf(plan, obs.History, goal)
	res.Power = &p
	if note := lagNote(c); note != "" {
		res.Adapted = append(res.Adapted, note)
	}
	if res.Verdict != Pass {
		res.Adapted = append(res.Adapted, fmt.Sprintf("seed %d: %d overlapping same-key pairs over %s", res.Seed, p.Overlaps, plural(p.Rounds, "round")))
		return
	}
	if p.Overlaps < p.Target {
		res.Verdict, res.Assumptions = Inconclusive, append(res.Assumptions, p.shortfall(goal.Budget))
		return
	}
	res.Adapted = append(res.Adapted, fmt.Sprintf("seed %d: %s", res.Seed, p.Sentence("double charge", goal.Budget)))
}
