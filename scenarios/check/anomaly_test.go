package check

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestRanksFollowTheDefinitions: the ranks the checker's passes add
// findings under name the definition at that index.
func TestRanksFollowTheDefinitions(t *testing.T) {
	for rank, a := range map[int]Anomaly{
		rankDoubleCharge: DoubleCharge, rankLostAck: LostAck, rankReplayMismatch: ReplayMismatch,
		rankMismatchExecuted: MismatchExecuted, rankBalance: Balance, rankStatusContract: StatusContract,
		rankStuckKey: StuckKey, rankStoreDesync: StoreDesync, rankCachedError: CachedError,
		rankHeldDuplicate: HeldDuplicate, rankRefusalNotReplayed: RefusalNotReplayed,
	} {
		if builtin[rank].Anomaly != a {
			t.Errorf("rank %d defines %s, want %s", rank, builtin[rank].Anomaly, a)
		}
	}
	if numBuiltin != len(builtin) {
		t.Errorf("%d ranks for %d definitions", numBuiltin, len(builtin))
	}
}

// TestEveryDefinitionIsWhole: every built-in anomaly says what it is, why,
// how to avoid it, its cause without a strategy's name, and its demo;
// none leaves Find set (the checker's passes find them).
func TestEveryDefinitionIsWhole(t *testing.T) {
	for _, d := range Definitions() {
		for field, v := range map[string]string{"Short": d.Short, "Title": d.Title, "What": d.What, "Why": d.Why,
			"Avoid": d.Avoid, "Cause": d.Cause, "Lesson.Scenario": d.Lesson.Scenario, "Lesson.Strategy": d.Lesson.Strategy,
			"Lesson.Shows": d.Lesson.Shows} {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: no %s", d.Anomaly, field)
			}
		}
		if d.Find != nil {
			t.Errorf("%s: a built-in anomaly with a Find", d.Anomaly)
		}
	}
}

// TestAllowedByProfile: each profile permission allows exactly the anomaly
// it names, and ietf allows none.
func TestAllowedByProfile(t *testing.T) {
	loose := api.IETF
	loose.MissingKey, loose.ReplayErrors, loose.InFlightWait, loose.RedecideRefusals = 0, true, true, true
	for _, a := range Anomalies() {
		if a.AllowedBy(api.IETF) {
			t.Errorf("ietf allows %s", a)
		}
	}
	want := map[Anomaly]bool{StatusContract: true, CachedError: true, HeldDuplicate: true, RefusalNotReplayed: true}
	for _, a := range Anomalies() {
		if a.AllowedBy(loose) != want[a] {
			t.Errorf("%s allowed by every permission: %v, want %v", a, a.AllowedBy(loose), want[a])
		}
	}
}

// TestARegisteredAnomalyIsFoundAndDefined: an anomaly added by nothing but
// its definition is found by Run, counted, ordered after the built-in
// ones, and known to every look-up.
func TestARegisteredAnomalyIsFoundAndDefined(t *testing.T) {
	defer func(r []Definition) { registry = r }(registry)
	slow := Register(Definition{Anomaly: "slow_answer", Short: "sa", Kind: KindContract, Title: "Slow answer",
		Find: func(in Input) []Finding {
			var out []Finding
			for _, a := range in.History.Attempts {
				if a.Return-a.Call > 1e9 {
					out = append(out, Finding{Key: a.Key, Attempts: []string{a.ID}, Detail: "answered after more than 1s"})
				}
			}
			return out
		}})
	in := Input{Profile: api.IETF, History: history.History{Attempts: []history.Attempt{
		{ID: "b", Key: "k2", Status: 201, Call: 0, Return: 2e9},
		{ID: "a", Key: "k1", Status: 201, Call: 0, Return: 3e9},
		{ID: "c", Key: "k3", Status: 201, Call: 0, Return: 1e6},
	}}}
	rep := Run(in)
	if rep.Counts[slow] != 2 || !rep.Failed() {
		t.Fatalf("counts %v", rep.Counts)
	}
	var keys []string
	for _, f := range rep.Findings {
		if f.Anomaly == slow {
			keys = append(keys, f.Key)
		}
	}
	if strings.Join(keys, ",") != "k1,k2" {
		t.Errorf("findings by key: %v", keys)
	}
	if all := Anomalies(); all[len(all)-1] != slow || slow.Short() != "sa" || Define(slow).Title != "Slow answer" {
		t.Errorf("look-ups: %v, %q, %q", all, slow.Short(), Define(slow).Title)
	}
	if u := ByUrgency(); u[len(u)-1] != slow {
		t.Errorf("by urgency: %v", u)
	}
}

// TestRegisterRefusesAnIncompleteOrTakenDefinition: a definition without a
// Find, or with a name or code already taken, panics at registration.
func TestRegisterRefusesAnIncompleteOrTakenDefinition(t *testing.T) {
	defer func(r []Definition) { registry = r }(registry)
	find := func(Input) []Finding { return nil }
	for name, d := range map[string]Definition{
		"no find":    {Anomaly: "x_y", Short: "xy", Title: "X"},
		"taken name": {Anomaly: DoubleCharge, Short: "xy", Title: "X", Find: find},
		"taken code": {Anomaly: "x_y", Short: "dc", Title: "X", Find: find},
		"no title":   {Anomaly: "x_y", Short: "xy", Find: find},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			Register(d)
		}()
	}
}
