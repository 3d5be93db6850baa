package scenarios

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestPowerArithmetic: 299 overlaps rule out a race hit by 1 % of them
// with 95 % confidence, 298 do not.
func TestPowerArithmetic(t *testing.T) {
	if DefaultPowerTarget != 299 {
		t.Errorf("DefaultPowerTarget = %d, want 299", DefaultPowerTarget)
	}
	if d := Detectable(299); d >= 0.01 || math.Pow(1-0.01, 299) > 1-Confidence {
		t.Errorf("299 overlaps: detectable %.5f; want under 1 %%", d)
	}
	if d := Detectable(298); d <= 0.01 {
		t.Errorf("298 overlaps: detectable %.5f; want over 1 %%", d)
	}
	if Detectable(0) != 1 {
		t.Error("no overlap rules out something")
	}
}

// TestPowerAim: the rounds go on past the floor (the target a pass
// needs) to the aim, 2995 overlaps by default (a race hit by 0.1 % of
// them ruled out), never short of the target, and stop at the budget; a
// pass short of its aim says why it stopped.
func TestPowerAim(t *testing.T) {
	if DefaultPowerAim != 2995 || Detectable(DefaultPowerAim) >= 0.001 || Detectable(DefaultPowerAim-1) <= 0.001 {
		t.Errorf("DefaultPowerAim = %d (detectable %.5f); want 2995, the least under 0.1 %%", DefaultPowerAim, Detectable(DefaultPowerAim))
	}
	var g PowerGoal
	switch {
	case !g.More(DefaultPowerTarget, 0):
		t.Error("the rounds stop at the floor")
	case g.More(DefaultPowerAim, 0):
		t.Error("the rounds go on past the aim")
	case g.More(0, DefaultPowerBudget):
		t.Error("the rounds go on past the budget")
	case !(PowerGoal{Target: 5000}).More(DefaultPowerAim, 0):
		t.Error("the rounds stop short of a target above the aim")
	case (PowerGoal{Aim: 10}).More(DefaultPowerTarget, 0):
		t.Error("an aim of 10 went on past the floor")
	}
	p := Power{Overlaps: 1000, Target: 299, Aim: 2995, Rounds: 7, Detectable: Detectable(1000)}
	if s := p.Sentence("double charge", 30*time.Second); !strings.HasSuffix(s, "confidence (the budget of 30s spent, short of the 2995 overlaps aimed at)") {
		t.Errorf("short of the aim at the budget: %q", s)
	}
	p.Rounds = maxPowerRounds
	if s := p.Sentence("double charge", 30*time.Second); !strings.HasSuffix(s, "(all 64 rounds sent, short of the 2995 overlaps aimed at)") {
		t.Errorf("short of the aim after every round: %q", s)
	}
	p.Overlaps = 3000
	if s := p.Sentence("double charge", 30*time.Second); !strings.HasSuffix(s, "confidence") {
		t.Errorf("at the aim: %q", s)
	}
}

// TestOverlapsCountFirstTriesTogether: two first tries of one key and
// payload in flight together are an overlap; a retry, another payload,
// a request that never left, or one after the other is not.
func TestOverlapsCountFirstTriesTogether(t *testing.T) {
	at := func(op, try int, fp string, from, to time.Duration) history.Attempt {
		return history.Attempt{Op: op, Try: try, Key: "k", Fingerprint: fp, Call: from, Return: to, Status: 201}
	}
	h := history.History{Attempts: []history.Attempt{
		at(0, 1, "f", 0, 100), at(1, 1, "f", 10, 20), at(2, 1, "f", 50, 150), // 3 pairs: 0-1, 0-2; 1-2 apart
		at(3, 2, "f", 0, 100),   // a retry
		at(4, 1, "g", 0, 100),   // another payload
		at(5, 1, "f", 200, 300), // after the others
	}}
	notSent := at(6, 1, "f", 0, 100)
	notSent.Outcome = history.NotSent
	h.Attempts = append(h.Attempts, notSent)
	if got := Overlaps(h); got != 2 {
		t.Errorf("Overlaps = %d, want 2 (op 0 with op 1 and with op 2)", got)
	}
}

// serviceCell is a user's service cell of scenario.
func serviceCell(scenario string) Cell {
	e := External{Name: "svc", URLs: []string{"http://127.0.0.1:1"}, LedgerQuery: "q", ClaimTimeout: DefaultClaimTimeout}
	return Cell{Strategy: "svc", Scenario: scenario, Seed: 3, Profile: api.IETF, Target: &e}
}

// TestPoweredPlanHasRounds: a race-hunting scenario against a service gets
// its rounds, each a stage with keys and barrier groups of its own; the
// built-in strategies and the other scenarios keep their one-stage plans.
func TestPoweredPlanHasRounds(t *testing.T) {
	_, plan, err := Prepare(serviceCell("concurrent-duplicates"))
	if err != nil {
		t.Fatal(err)
	}
	if plan.Stages() != maxPowerRounds {
		t.Fatalf("%d stages, want %d rounds", plan.Stages(), maxPowerRounds)
	}
	keys, groups := map[string]int{}, map[int]int{}
	for i, op := range plan.Ops {
		if op.ID != i {
			t.Fatalf("op %d has id %d", i, op.ID)
		}
		if s, ok := keys[op.Key]; ok && s != op.Stage {
			t.Fatalf("key %s in rounds %d and %d", op.Key, s, op.Stage)
		}
		if s, ok := groups[op.Group]; ok && s != op.Stage {
			t.Fatalf("group %d in rounds %d and %d", op.Group, s, op.Stage)
		}
		keys[op.Key], groups[op.Group] = op.Stage, op.Stage
	}
	if first := plan.FirstStages(2); first.Stages() != 2 || len(first.Ops) != 2*len(plan.FirstStages(1).Ops) {
		t.Errorf("the first two rounds: %d stages, %d ops", first.Stages(), len(first.Ops))
	}
	for _, c := range []Cell{{Strategy: "pg-tx", Scenario: "concurrent-duplicates", Seed: 3}, serviceCell("dropped-response")} {
		if _, p, err := Prepare(c); err != nil || p.Stages() != 1 {
			t.Errorf("%s / %s: %d stages (%v), want its one", c.Strategy, c.Scenario, p.Stages(), err)
		}
	}
}

// TestJudgePower: a pass that reached the target says what it rules out;
// one below it is inconclusive, with its count; a failure fails whatever
// the count.
func TestJudgePower(t *testing.T) {
	c, plan, err := Prepare(serviceCell("concurrent-duplicates"))
	if err != nil {
		t.Fatal(err)
	}
	c.Target.Power.Target = 10
	plan = plan.FirstStages(1)
	var atts []history.Attempt
	var ledger history.Ledger
	first := map[int]bool{}
	for i, op := range plan.Ops {
		a := history.Attempt{Op: op.ID, Try: 1, ID: client.AttemptID(op.ID, 1), Key: op.Key, Account: op.Account, Amount: op.Amount,
			Fingerprint: "f", Call: time.Duration(op.Group) * time.Second, Return: time.Duration(op.Group)*time.Second + 100*time.Millisecond,
			Status: 409, Outcome: history.Rejected}
		if !first[op.Group] {
			first[op.Group] = true
			id := "ch_" + a.ID
			a.Status, a.Outcome, a.ChargeID, a.Body = 201, history.Acked, id, `{"id":"`+id+`"}`
			ledger.Charges = append(ledger.Charges, history.Charge{ID: id, Key: op.Key, Account: op.Account, Amount: op.Amount, AttemptID: a.ID, Seq: int64(i + 1)})
		}
		atts = append(atts, a)
	}
	rec := Record{Cell: c, Plan: plan, Obs: Observation{History: history.History{Seed: 3, Attempts: atts}, Ledger: ledger}}
	res := Judge(rec)
	if res.Power == nil || res.Power.Overlaps != 150 || res.Power.Rounds != 1 {
		t.Fatalf("power %+v; want 150 overlaps in one round", res.Power)
	}
	rec.Obs.Ledger.Charges = append(rec.Obs.Ledger.Charges, rec.Obs.Ledger.Charges[0])
	rec.Obs.Ledger.Charges[len(rec.Obs.Ledger.Charges)-1].ID, rec.Obs.Ledger.Charges[len(rec.Obs.Ledger.Charges)-1].Seq = "ch_twice", 1000
	if res := Judge(rec); res.Verdict != Fail || !strings.Contains(strings.Join(res.Adapted, " "), "150 overlapping same-key pairs over 1 round") {
		t.Errorf("a failure: %s, adapted %q; want the counts said", res.Verdict, res.Adapted)
	}
	rec.Obs.Ledger.Charges = rec.Obs.Ledger.Charges[:len(rec.Obs.Ledger.Charges)-1]
	if res.Verdict != Pass || !strings.Contains(strings.Join(res.Adapted, " "), "no double charge in 150 overlapping same-key pairs over 1 round: a race hit by more than 1.98 % of overlaps") {
		t.Errorf("at the target: %s, %q, adapted %q; want a pass that says what it rules out", res.Verdict, res.Assumptions, res.Adapted)
	}
	c.Target.Power.Target = 1000
	rec.Cell = c
	if res := Judge(rec); res.Verdict != Inconclusive || !strings.Contains(strings.Join(res.Assumptions, " "), "only 150 overlapping same-key pairs of the 1000 asked for") {
		t.Errorf("below the target: %s, %q; want inconclusive with the count", res.Verdict, res.Assumptions)
	}
}

// TestHoldPlan: the hold probes are HoldPairs pairs, each a fresh key on
// an account of the plan, the duplicate the given delay after its first
// request, each pair's first after the previous pair's first; only a
// service cell whose charge was measured slow enough sends them.
func TestHoldPlan(t *testing.T) {
	c, plan, err := Prepare(serviceCell("concurrent-duplicates"))
	if err != nil {
		t.Fatal(err)
	}
	hold := HoldPlan(plan, c.Seed, 50*time.Millisecond, 1000, api.Injection{})
	if len(hold.Ops) != 2*HoldPairs {
		t.Fatalf("%d ops, want %d", len(hold.Ops), 2*HoldPairs)
	}
	keys := map[string]bool{}
	for _, op := range plan.Ops {
		keys[op.Key] = true
	}
	for i := 0; i < len(hold.Ops); i += 2 {
		a, b := hold.Ops[i], hold.Ops[i+1]
		switch {
		case a.ID != 1000+i || b.ID != a.ID+1 || a.Key != b.Key || keys[a.Key] || a.Account != b.Account || a.Amount != b.Amount:
			t.Fatalf("pair %d: %+v, %+v", i/2, a, b)
		case b.Delay != 50*time.Millisecond || a.Delay != 0 || a.MaxTries != 1 || b.MaxTries != 1:
			t.Fatalf("pair %d: delays %s, %s, tries %d, %d", i/2, a.Delay, b.Delay, a.MaxTries, b.MaxTries)
		case i > 0 && (a.After != i-2 || b.After != i-2):
			t.Fatalf("pair %d starts after %d and %d, want %d", i/2, a.After, b.After, i-2)
		}
		keys[a.Key] = true
	}
	if again := HoldPlan(plan, c.Seed, 50*time.Millisecond, 1000, api.Injection{}); again.Ops[0].Key != hold.Ops[0].Key {
		t.Error("the hold probes are not drawn from the seed")
	}
	if c.ProbesHolds(mustScenario(t, "concurrent-duplicates")) {
		t.Error("a cell whose charge was not measured sends hold probes")
	}
	c.Timing = &Timing{Charge: 200 * time.Millisecond}
	if !c.ProbesHolds(mustScenario(t, "concurrent-duplicates")) || c.ProbesHolds(mustScenario(t, "dropped-response")) {
		t.Error("the hold probes go with concurrent-duplicates against a service slow enough, and only there")
	}
}

func mustScenario(t *testing.T, name string) Scenario {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestPercentRoundsUp: a detectable rate is quoted rounded up, so "a race
// hit by more than X" stays true.
func TestPercentRoundsUp(t *testing.T) {
	for rate, want := range map[float64]string{Detectable(300): "1 %", Detectable(3139): "0.1 %", Detectable(150): "1.98 %", 0.01: "1 %", 0.0123: "1.23 %"} {
		if got := percent(rate); got != want {
			t.Errorf("percent(%.6f) = %q, want %q", rate, got, want)
		}
	}
}
