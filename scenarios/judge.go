package scenarios

import (
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
)

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
	twoStores, expected, assume := rec.facts().TwoStores, Expected(c.Strategy, sc.Name, c.Profile), sc.Assume
	if c.Target != nil { // a user's service: must pass, judged on what the plan exercised
		expected, assume = nil, assumeFromPlan(plan, sc.Gate != nil)
		if c.Adapted != nil && c.Adapted.Policy != nil {
			checks := []func(Observation) []string{assumeOutlasted}
			if assume != nil {
				checks = append(checks, assume)
			}
			assume = allOf(checks)
		}
	}
	var replay check.ReplayCompare // the built-in targets replay byte for byte
	if c.Target != nil {
		replay = c.Target.Replay
	}
	currency := plan.Currency()
	rep := check.Run(check.Input{History: obs.History, Ledger: obs.Ledger, Profile: c.Profile, TwoStores: twoStores, Replay: replay,
		Currency: currency})
	res := Result{Strategy: c.Strategy, Scenario: sc.Name, Seed: c.Seed, Profile: c.Profile.Name, Replicas: c.Replicas,
		Anomalies: rep.Counts, Overcharged: rep.Overcharged, Currency: currency, Requests: len(obs.History.Attempts),
		DurationMS: took.Milliseconds(), Expected: expected, Faults: len(plan.Faults()),
		Findings: rep.Findings, Timelines: timelines(rep.Findings, obs), Repro: c.Repro(), Service: c.Target != nil}
	if c.Adapted != nil {
		res.Adapted = c.Adapted.Notes
	}
	res.Assumptions = assumeGeneric(obs, hidden)
	if c.Target != nil {
		res.Assumptions = append(res.Assumptions, assumeService(obs)...)
	}
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
	res.AsExpected = matches(res)
	return res
}

// maxTimelines bounds the keys whose full story a result keeps.
const maxTimelines = 5

// Timeline is the evidence of one key: every attempt and ledger charge for
// it, and its Redis record if the strategy keeps one.
type Timeline struct {
	Key      string               `json:"key"`
	Attempts []history.Attempt    `json:"attempts"`
	Charges  []history.Charge     `json:"charges"`
	Redis    *history.RedisRecord `json:"redis,omitempty"`
}

// timelines builds the timelines of the first keys the findings name.
func timelines(findings []check.Finding, obs Observation) []Timeline {
	var out []Timeline
	seen := map[string]bool{}
	for _, f := range findings {
		if f.Key == "" || seen[f.Key] || len(out) == maxTimelines {
			continue
		}
		seen[f.Key] = true
		out = append(out, timelineOf(f.Key, obs))
	}
	return out
}

func timelineOf(key string, obs Observation) Timeline {
	t := Timeline{Key: key}
	for _, a := range obs.History.Attempts {
		if a.Key == key {
			t.Attempts = append(t.Attempts, a)
		}
	}
	for _, c := range obs.Ledger.Charges {
		if c.Key == key {
			t.Charges = append(t.Charges, c)
		}
	}
	for i := range obs.Ledger.Redis {
		if obs.Ledger.Redis[i].Key == key {
			t.Redis = &obs.Ledger.Redis[i]
		}
	}
	return t
}
