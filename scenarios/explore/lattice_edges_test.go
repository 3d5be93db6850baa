package explore

import (
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// race is the orders of two requests of two points each (send, store)
// that check the key when sent: a request sent while the other is between
// its send and its store double-charges; one sent after the other is done
// is replayed at once.
func race() []Run {
	var runs []Run
	for _, o := range []string{"AAB", "ABAB", "ABBA", "BAAB", "BABA", "BBA"} {
		order, _ := ParseOrder(o, 2)
		run := Run{Execution: Execution{Order: order}, Class: ClassReplayed}
		seen := [2]int{}
		for _, r := range order {
			run.Steps = append(run.Steps, Step{Request: r, From: []string{"send", "store"}[seen[r]]})
			seen[r]++
		}
		if len(o) == 4 {
			run.Class, run.Outcome.Anomalies = string(check.DoubleCharge), []check.Anomaly{check.DoubleCharge}
		}
		runs = append(runs, run)
	}
	return runs
}

// TestEdgesEnterTheLostRegion: the steps into the lost state (both sent,
// neither stored) count the failing orders that enter it there, and each
// step counts its orders by class.
func TestEdgesEnterTheLostRegion(t *testing.T) {
	runs := race()
	l := LatticeOf(runs)
	if !l.Nodes[1][1].Lost() || l.Nodes[0][0].Lost() {
		t.Fatalf("lattice %+v: want A1 B1 lost, A0 B0 not", l.Nodes)
	}
	entered := map[Edge]int{}
	for _, e := range l.Edges(runs) {
		if e.Entered > 0 {
			entered[e.Edge] = e.Entered
		}
		if e.Edge == (Edge{0, 0, 0}) && (e.Classes["replayed"] != 1 || e.Classes["double_charge"] != 2 || e.Orders() != 3 || !slices.Equal(e.Points, []string{"send"})) {
			t.Errorf("A's send from A0 B0: %+v; want 1 replayed and 2 double charges, from send", e)
		}
	}
	want := map[Edge]int{{1, 0, 1}: 2, {0, 1, 0}: 2}
	if len(entered) != len(want) || entered[Edge{1, 0, 1}] != 2 || entered[Edge{0, 1, 0}] != 2 {
		t.Errorf("entries %v; want %v: each send into A1 B1, by the two orders through it", entered, want)
	}
}

// TestVerdict: an order that failed every time it ran is a fail; one that
// only varied, or an order not run, leaves it inconclusive.
func TestVerdict(t *testing.T) {
	runs := race()
	res := Result{Runs: runs}
	if v := res.Verdict(); v != scenarios.Fail {
		t.Errorf("double charges: %s", v)
	}
	var holding []Run
	for _, r := range runs {
		if r.Outcome.Holds() {
			holding = append(holding, r)
		}
	}
	if v := (Result{Runs: holding}).Verdict(); v != scenarios.Pass {
		t.Errorf("every order holds: %s", v)
	}
	if v := (Result{Runs: holding, Errors: []string{"AB: diverged"}}).Verdict(); v != scenarios.Inconclusive {
		t.Errorf("an order not run: %s", v)
	}
	varied := slices.Clone(holding)
	varied[0].Varied = []string{"double_charge"}
	if v := (Result{Runs: varied}).Verdict(); v != scenarios.Inconclusive {
		t.Errorf("an order that varied: %s", v)
	}
}

// TestHoldingClasses: an outcome that broke nothing is classed by one of
// HoldingClasses.
func TestHoldingClasses(t *testing.T) {
	var names []string
	for _, c := range HoldingClasses() {
		names = append(names, c.Name)
	}
	for _, statuses := range [][]int{{201, 409}, {201, 201}, {201, 0}, {201, 422}} {
		if c := (Outcome{Statuses: statuses}).Class(api.IETF); !slices.Contains(names, c) {
			t.Errorf("answers %v: class %q, not one of %v", statuses, c, names)
		}
	}
}
