package scenarios

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Power: a scenario that hunts a race (Scenario.Hunts) against a user's
// service does not stop at its plan's first round. It counts the same-key
// overlaps it achieved, as far as the evidence from outside shows (two
// first tries of one key and payload in flight together, as their client
// saw them), and sends further rounds, each a fresh draw of its plan with
// keys of its own, until the overlaps reach its aim (a race hit by 0.1 %
// of them ruled out), the budget runs out or every round was sent: against
// a fast service overlaps cost milliseconds, and the run spends what it
// was given. A pass then says how hard it tried: a race hit by more than a
// share of the overlaps would have shown with 95 % confidence. Below the
// target (the floor: 1 %) the run proves too little, and is inconclusive
// with its count. The duplicates of a round are placed across their first
// request's measured charge (lags.go). The built-in strategies keep their
// deterministic plans.

// Confidence is the probability with which a race of the stated rate
// shows in a run that reached its power target.
const Confidence = 0.95

// DefaultPowerRate is the race rate the default target rules out: a race
// hit by 1 % of overlaps shows with 95 % probability. DefaultAimRate is the
// one the rounds go on to rule out while the budget lasts: 0.1 %.
const (
	DefaultPowerRate = 0.01
	DefaultAimRate   = 0.001
)

// Bounds of the power rounds. The default budget is measured (docs/
// own-service.md): a service that charges in a few milliseconds reaches
// the aim well within it, and one that charges in 150 ms its floor in
// seconds and the aim in 18 to 28 s, on 2 loaded cores.
const (
	DefaultPowerBudget = 30 * time.Second
	MaxPowerBudget     = 30 * time.Minute
	MaxPowerTarget     = 100000
	maxPowerRounds     = workload.MaxStages
)

// DefaultPowerTarget is the overlaps that rule out DefaultPowerRate (299):
// the floor a pass needs. DefaultPowerAim is those that rule out
// DefaultAimRate (2995): where the rounds stop, budget permitting.
var (
	DefaultPowerTarget = OverlapsFor(DefaultPowerRate)
	DefaultPowerAim    = OverlapsFor(DefaultAimRate)
)

// OverlapsFor is the number of overlaps after which a race hit by rate of
// them shows with Confidence: the least n with (1-rate)^n <= 1-Confidence.
func OverlapsFor(rate float64) int {
	return int(math.Ceil(math.Log(1-Confidence) / math.Log(1-rate)))
}

// Detectable is the smallest race rate n overlaps rule out with
// Confidence: 1 - (1-Confidence)^(1/n).
func Detectable(n int) float64 {
	if n <= 0 {
		return 1
	}
	return 1 - math.Pow(1-Confidence, 1/float64(n))
}

// Power is how hard a race-hunting scenario tried against a service.
type Power struct {
	// Overlaps counts the same-key pairs the rounds put in flight together.
	Overlaps int `json:"overlaps"`
	// Target is the overlaps a pass needs, Aim those the rounds went on
	// to while the budget lasted, and Rounds the rounds the run sent (the
	// first included).
	Target int `json:"target"`
	Aim    int `json:"aim,omitempty"`
	Rounds int `json:"rounds"`
	// Detectable is the smallest share of overlaps a race must hit to have
	// shown with Confidence, given Overlaps.
	Detectable float64 `json:"detectable"`
}

// Sentence says what a run of this power rules out, for a pass, and, short
// of its aim, why it stopped there: the budget, or every round sent.
func (p Power) Sentence(anomaly string, budget time.Duration) string {
	s := fmt.Sprintf("no %s in %d overlapping same-key pairs over %s: a race hit by more than %s of overlaps would have shown with %.0f %% confidence",
		anomaly, p.Overlaps, plural(p.Rounds, "round"), percent(p.Detectable), Confidence*100)
	switch {
	case p.Overlaps >= p.Aim:
	case p.Rounds >= maxPowerRounds:
		s += fmt.Sprintf(" (all %d rounds sent, short of the %d overlaps aimed at)", maxPowerRounds, p.Aim)
	default:
		s += fmt.Sprintf(" (the budget of %s spent, short of the %d overlaps aimed at)", ShortDuration(budget), p.Aim)
	}
	return s
}

// shortfall is the assumption of a run that stopped below its target.
func (p Power) shortfall(budget time.Duration) string {
	return fmt.Sprintf("only %d overlapping same-key pairs of the %d asked for in %s (budget %s): a race hit by less than %s of overlaps could have been missed; "+
		"raise the power budget, or lower the target", p.Overlaps, p.Target, plural(p.Rounds, "round"), ShortDuration(budget), percent(p.Detectable))
}

// percent is rate in percent, rounded up to the hundredth: the sentences
// that quote a detectable rate stay true ("more than 0.1 %" for 0.0954 %).
func percent(rate float64) string {
	s := fmt.Sprintf("%.2f", math.Ceil(rate*10000-1e-9)/100)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + " %"
}

// PowerGoal is what a user asks of a race-hunting scenario: the overlaps
// a pass needs (Target), those the rounds go on to (Aim: never fewer than
// Target), and the longest they are sent for.
type PowerGoal struct {
	Target int           `json:"target,omitempty"` // overlaps (0: DefaultPowerTarget)
	Aim    int           `json:"aim,omitempty"`    // overlaps (0: DefaultPowerAim)
	Budget time.Duration `json:"budget_ns,omitempty"`
}

// WithDefaults fills the zero fields, and raises an aim below the target
// to it.
func (g PowerGoal) WithDefaults() PowerGoal {
	if g.Target <= 0 {
		g.Target = DefaultPowerTarget
	}
	if g.Aim <= 0 {
		g.Aim = DefaultPowerAim
	}
	g.Aim = max(g.Aim, g.Target)
	if g.Budget <= 0 {
		g.Budget = DefaultPowerBudget
	}
	return g
}

// More reports whether a run with overlaps, since its start, sends its
// next round: short of its aim, with budget left.
func (g PowerGoal) More(overlaps int, since time.Duration) bool {
	g = g.WithDefaults()
	return since < g.Budget && overlaps < g.Aim
}

// Check reports the first problem with g, or nil.
func (g PowerGoal) Check() error {
	switch {
	case g.Target < 0 || g.Target > MaxPowerTarget:
		return fmt.Errorf("power target %d: want 1 to %d overlaps (0: %d, a race hit by 1 %% of them)", g.Target, MaxPowerTarget, DefaultPowerTarget)
	case g.Aim < 0 || g.Aim > MaxPowerTarget:
		return fmt.Errorf("power aim %d: want 1 to %d overlaps (0: %d, a race hit by 0.1 %% of them)", g.Aim, MaxPowerTarget, DefaultPowerAim)
	case g.Budget < 0 || g.Budget > MaxPowerBudget:
		return fmt.Errorf("power budget %s: want at most %s", g.Budget, MaxPowerBudget)
	}
	return nil
}

// Goal is the cell's power goal: the service's (the command line), else
// the scenario's (its file), else the defaults.
func (c Cell) Goal(sc Scenario) PowerGoal {
	g := c.under().goal()
	if g.Target <= 0 {
		g.Target = sc.Power.Target
	}
	if g.Aim <= 0 {
		g.Aim = sc.Power.Aim
	}
	if g.Budget <= 0 {
		g.Budget = sc.Power.Budget
	}
	return g.WithDefaults()
}

// Powered reports whether the cell hunts its race in rounds: a user's
// service under a scenario that hunts one.
func (c Cell) Powered(sc Scenario) bool { return c.under().hunts(sc) }

// withRounds adds the rounds after plan's first, each a fresh draw of the
// scenario's plan from its own stream, keys of its own, in a stage of its
// own: the engine sends them one after another until the overlaps reach
// the aim (or the budget ends) and keeps those it sent.
func withRounds(sc Scenario, seed uint64, p Params, plan workload.Plan) workload.Plan {
	groups := 0
	for _, op := range plan.Ops {
		groups = max(groups, op.Group+1)
	}
	for r := 1; r < maxPowerRounds; r++ {
		round := sc.Plan(workload.Seeded(seed, fmt.Sprintf("plan/%s/round-%d", sc.Name, r)), p)
		offset, roundGroups := len(plan.Ops), 0
		for _, op := range round.Ops {
			op.ID += offset
			if op.After >= 0 {
				op.After += offset
			}
			if op.Group >= 0 {
				roundGroups = max(roundGroups, op.Group+1)
				op.Group += groups
			}
			op.Stage = r
			plan.Ops = append(plan.Ops, op)
		}
		groups += roundGroups
	}
	return plan
}

// Overlaps counts the same-key pairs in flight together: two first tries
// of distinct ops of one key and payload whose spans, as the client (or,
// where it logs them, the server) saw them, intersect.
func Overlaps(h history.History) int {
	byKey := map[string][]*history.Attempt{}
	for i := range h.Attempts {
		a := &h.Attempts[i]
		if a.Key != "" && a.Try == 1 && !a.Hidden && !a.ReplayProbe && !a.HoldProbe && a.Outcome != history.NotSent {
			byKey[a.Key+"\x00"+a.Fingerprint] = append(byKey[a.Key+"\x00"+a.Fingerprint], a)
		}
	}
	n := 0
	for _, atts := range byKey {
		for i, a := range atts {
			for _, b := range atts[i+1:] {
				if a.Op != b.Op && together(a, b) {
					n++
				}
			}
		}
	}
	return n
}

// together reports whether a and b were in flight at the same time.
func together(a, b *history.Attempt) bool {
	as, ae, _ := span(a)
	bs, be, _ := span(b)
	return as < be && bs < ae
}

// PowerOf is the power a run achieved: its overlaps, over the rounds its
// plan kept.
func PowerOf(plan workload.Plan, h history.History, goal PowerGoal) Power {
	goal = goal.WithDefaults()
	n := Overlaps(h)
	return Power{Overlaps: n, Target: goal.Target, Aim: goal.Aim, Rounds: plan.Stages(), Detectable: Detectable(n)}
}
