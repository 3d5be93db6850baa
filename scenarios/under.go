package scenarios

import (
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// under is everything that differs between the two kinds of target a cell
// runs against: a built-in strategy the engine deploys (builtin), and a
// user's own service (service). Cell.under decides which, once; every
// difference is a method here rather than a check of Cell.Target at the
// place that needs it.
type under interface {
	// adapt fits the cell's plan to the target, or says why the
	// scenario cannot run against it.
	adapt(c Cell, sc Scenario, plan workload.Plan) (Cell, workload.Plan, string)
	// skip says why the scenario cannot run against the target ("": it can).
	skip(sc Scenario) string
	// defaults fills what the cell leaves unset.
	defaults(c Cell, sc Scenario) Cell
	// expect is what the cell must show, and what its run must have done
	// to prove anything.
	expect(c Cell, sc Scenario, plan workload.Plan) ([]check.Anomaly, func(Observation) []string)
	// input adds to the checker's input what the target tells of itself.
	input(in *check.Input, c Cell)
	// assumptions are the target's own reasons a run proved nothing.
	assumptions(obs Observation) []string
	// hunts says whether the cell hunts its race in rounds.
	hunts(sc Scenario) bool
	// goal is the target's power goal (zero: the scenario's).
	goal() PowerGoal
	// probesHolds says whether the run ends with hold probes.
	probesHolds(c Cell, sc Scenario) bool
	// holdFirst is the in-target delay that keeps a hold probe's first
	// request in flight, with its key claimed (false: the target cannot
	// be held, and the probes go by its measured charge).
	holdFirst() (api.Injection, bool)
	// needsTiming says whether the target's charge time must be measured
	// before the cell.
	needsTiming(sc Scenario) bool
	// repro is the one-line command that re-runs the cell.
	repro(c Cell) string
	// facts are the target's facts for a record saved without them.
	facts(strategy string) Facts
}

// under is the cell's kind of target.
func (c Cell) under() under {
	if c.Target == nil {
		return builtin{strategy: c.Strategy}
	}
	return service{c.Target}
}

// Service reports whether the cell runs against a user's own service.
func (c Cell) Service() bool { _, ok := c.under().(service); return ok }

// builtin is a built-in strategy, deployed by the engine: it runs every
// scenario its store allows, must show what its definition declares,
// replays byte for byte and logs every request.
type builtin struct{ strategy string }

// skip: no strategy runs a scenario for a user's service only (its store
// is none of theirs), and a strategy on InnoDB cannot run a scenario of
// the harness's replicated Postgres (its standby, its crash); every other
// runs all.
func (b builtin) skip(sc Scenario) string {
	if sc.ServiceOnly {
		return SkipServiceOnly
	}
	if info, err := design.Lookup(b.strategy); err == nil && info.MySQL && sc.Replicated {
		return SkipOnInnoDB
	}
	return ""
}

// SkipServiceOnly is why a scenario for a user's service only does not run
// a built-in strategy.
const SkipServiceOnly = "faults a store no built-in strategy keeps its keys in (DynamoDB): it runs against a user's service only"

// SkipOnInnoDB is why a scenario on the harness's replicated Postgres does
// not run a strategy on InnoDB.
const SkipOnInnoDB = "needs the harness's replicated Postgres; this strategy is on InnoDB"

func (builtin) adapt(c Cell, _ Scenario, plan workload.Plan) (Cell, workload.Plan, string) {
	return c, plan, ""
}

func (builtin) defaults(c Cell, sc Scenario) Cell {
	c.Replicas = max(c.Replicas, sc.Target.Replicas, 1)
	if c.Profile.Name == "" {
		c.Profile = api.IETF
	}
	if c.ClaimTTL <= 0 {
		c.ClaimTTL = sc.Target.ClaimTTL
	}
	if c.ClaimTTL <= 0 {
		c.ClaimTTL = defaultClaimTTL
	}
	if c.KeyTTL <= 0 {
		c.KeyTTL = sc.Target.KeyTTL
	}
	return c
}

func (builtin) expect(c Cell, sc Scenario, _ workload.Plan) ([]check.Anomaly, func(Observation) []string) {
	return Expected(c.Strategy, sc.Name, c.Profile), sc.Assume
}

func (builtin) input(*check.Input, Cell)         {}
func (builtin) assumptions(Observation) []string { return nil }
func (builtin) hunts(Scenario) bool              { return false }
func (builtin) goal() PowerGoal                  { return PowerGoal{} }
func (builtin) needsTiming(Scenario) bool        { return false }
func (builtin) repro(c Cell) string              { return c.builtinRepro() }
func (builtin) facts(strategy string) Facts      { info, _ := design.Lookup(strategy); return FactsOf(info) }

// probesHolds: a built-in strategy is probed for holds under every
// scenario that probes them, unless its profile waits by design.
func (builtin) probesHolds(c Cell, sc Scenario) bool { return sc.ProbeHolds && !c.Profile.InFlightWait }

// holdFirst: a built-in's first request is held at before-commit, a
// point every built-in passes with its charge made and its key claimed
// (if it claims one): a duplicate then meets the claim, is held on it, or
// (a design without one) charges again.
func (builtin) holdFirst() (api.Injection, bool) {
	return api.Injection{Action: api.Delay, Arg: HoldDelay, Point: api.BeforeCommit}, true
}

// service is a user's own service: it must pass, judged on what the plan
// exercised; the scenario adapts to what it carries and to how long it
// charges.
type service struct{ t *External }

func (s service) skip(sc Scenario) string { return s.t.Skip(sc) }

func (s service) adapt(c Cell, sc Scenario, plan workload.Plan) (Cell, workload.Plan, string) {
	var skip string
	if c.Adapted, skip = s.t.adaptation(sc, c.Timing, plan); skip != "" {
		return c, plan, skip
	}
	return c, s.t.adaptTopUps(plan, s.t.adapt(plan)), ""
}

func (s service) defaults(c Cell, _ Scenario) Cell { return c.externalDefaults() }

func (s service) expect(c Cell, sc Scenario, plan workload.Plan) ([]check.Anomaly, func(Observation) []string) {
	assume := assumeFromPlan(plan, sc.Gate != nil)
	if c.Adapted != nil && c.Adapted.Policy != nil {
		checks := []func(Observation) []string{assumeOutlasted}
		if assume != nil {
			checks = append(checks, assume)
		}
		assume = allOf(checks)
	}
	return nil, assume
}

func (s service) input(in *check.Input, c Cell) {
	in.Replay = s.t.Replay
	if c.Timing != nil {
		in.ChargeTime = c.Timing.Charge
	}
}

func (s service) assumptions(obs Observation) []string { return assumeService(obs) }
func (s service) hunts(sc Scenario) bool               { return sc.Hunts }
func (s service) goal() PowerGoal                      { return s.t.Power }
func (s service) needsTiming(sc Scenario) bool         { return !s.t.Failpoints && sc.Outlast }
func (s service) repro(c Cell) string                  { return s.t.Repro(c) }
func (s service) facts(string) Facts                   { return Facts{} }

// holdFirst: a service that speaks the failpoint protocol holds its first
// request at after-claim, the one point a service is asked to name with
// its key claimed.
func (s service) holdFirst() (api.Injection, bool) {
	if !s.t.Failpoints {
		return api.Injection{}, false
	}
	return api.Injection{Action: api.Delay, Arg: HoldDelay, Point: api.AfterClaim}, true
}

func (s service) probesHolds(c Cell, sc Scenario) bool {
	if !sc.ProbeHolds || c.Profile.InFlightWait {
		return false
	}
	return s.t.Failpoints || c.Timing != nil && c.Timing.Charge >= HoldMinCharge
}
