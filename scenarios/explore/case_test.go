package explore

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestExpand: a duplicate is one case; a cut strikes at every point the
// request passes; a lost reply from the charge on (before-commit), and at
// the answer itself.
func TestExpand(t *testing.T) {
	points := []string{"after-check", "after-claim", "before-commit", "after-commit"}
	names := func(cs []Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name())
		}
		return out
	}
	for kind, want := range map[string][]string{
		"duplicate":  {"duplicate"},
		"lost-reply": {"lost-reply@before-commit", "lost-reply@after-commit", "lost-reply@answer"},
		"pg-cut":     {"pg-cut@after-check", "pg-cut@after-claim", "pg-cut@before-commit", "pg-cut@after-commit"},
	} {
		k, err := LookupKind(kind)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(k.Expand(points)); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", kind, got, want)
		}
	}
	for _, bad := range []string{"nope", "duplicate@after-check", "pg-cut@nowhere"} {
		if _, err := ParseCase(bad); err == nil {
			t.Errorf("ParseCase(%q) took it", bad)
		}
	}
	if c, err := ParseCase("lost-reply"); err != nil || c.At != Every {
		t.Errorf("ParseCase(lost-reply) = %+v, %v; want every point", c, err)
	}
}

// twoRequests is an execution of a duplicate on key k: A charged ch_1,
// B as b says, the ledger holding charges.
func twoRequests(b history.Attempt, charges ...history.Charge) Execution {
	fp := api.ChargeRequest{Account: "acct", Amount: 100, Currency: "EUR"}.Fingerprint()
	a := history.Attempt{ID: "o0-t1", Key: "k", Account: "acct", Amount: 100, Fingerprint: fp, Call: 0, Return: 50 * time.Millisecond,
		Status: 201, Outcome: history.Acked, ChargeID: "ch_1", Body: "x"}
	b.Key, b.Account, b.Amount, b.Fingerprint, b.ID = "k", "acct", 100, fp, "o1-t1"
	return Execution{Order: Order{0, 1}, Steps: []Step{{0, Send, false}, {1, Send, false}}, Attempts: []history.Attempt{a, b},
		Answered: []int{2, 2}, Ledger: history.Ledger{Charges: charges}}
}

// TestJudge: the checker judges an execution; a request that waited on
// another is a held duplicate (never read from the stretched timings); a
// profile that waits by design has none; classes name what happened.
func TestJudge(t *testing.T) {
	one := history.Charge{ID: "ch_1", Key: "k", Account: "acct", Amount: 100, AttemptID: "o0-t1", Seq: 1}
	refused := twoRequests(history.Attempt{Call: 10 * time.Millisecond, Return: 12 * time.Millisecond, Status: 409, Outcome: history.Rejected}, one)
	if o := Judge(refused, api.IETF, false); !o.Holds() || o.Class(api.IETF) != "refused" {
		t.Errorf("refused: %+v, class %s", o, o.Class(api.IETF))
	}
	twice := twoRequests(history.Attempt{Call: 10 * time.Millisecond, Return: 40 * time.Millisecond, Status: 201, Outcome: history.Acked, ChargeID: "ch_2", Body: "y"},
		one, history.Charge{ID: "ch_2", Key: "k", Account: "acct", Amount: 100, AttemptID: "o1-t1", Seq: 2})
	if o := Judge(twice, api.IETF, false); o.Holds() || o.Class(api.IETF) != string(check.DoubleCharge) || !strings.Contains(o.Detail, "charged twice") {
		t.Errorf("double charge: %+v", o)
	}
	waited := twoRequests(history.Attempt{Call: 10 * time.Millisecond, Return: 60 * time.Millisecond, Status: 201, Outcome: history.Acked, ChargeID: "ch_1", Body: "x", Replayed: true}, one)
	waited.Steps[1].Waited = true
	if o := Judge(waited, api.IETF, false); !slices.Equal(o.Anomalies, []check.Anomaly{check.HeldDuplicate}) || !strings.Contains(o.Detail, "waited") {
		t.Errorf("waited: %+v", o)
	}
	charging := twoRequests(history.Attempt{Call: 10 * time.Millisecond, Return: 60 * time.Millisecond, Status: 201, Outcome: history.Acked, ChargeID: "ch_2", Body: "y"},
		one, history.Charge{ID: "ch_2", Key: "k", Account: "acct", Amount: 100, AttemptID: "o1-t1", Seq: 2})
	charging.Steps[1].Waited = true // on the account's row lock: then it charged
	if o := Judge(charging, api.IETF, false); slices.Contains(o.Anomalies, check.HeldDuplicate) || !slices.Contains(o.Anomalies, check.DoubleCharge) {
		t.Errorf("waited, then charged: %+v", o)
	}
	late := refused
	late.Answered = []int{1, 2} // A was answered before B was sent: nothing held the key
	if o := Judge(late, api.IETF, false); !o.Holds() {
		t.Errorf("a 409 with nothing in flight, no probe yet (the claim may lapse): %+v", o)
	}
	late.Probe = &history.Attempt{ID: "o2-t1", Status: 200, Outcome: history.Acked}
	if o := Judge(late, api.IETF, false); !o.Holds() {
		t.Errorf("a 409 with nothing in flight, then the probe answered: %+v", o)
	}
	late.Probe = &history.Attempt{ID: "o2-t1", Status: 409, Outcome: history.Rejected}
	if o := Judge(late, api.IETF, false); !slices.Equal(o.Anomalies, []check.Anomaly{check.StuckKey}) {
		t.Errorf("a 409 with nothing in flight, and after the claim timeout: %+v", o)
	}
	early := api.Profile{Name: "early", MissingKey: 400, InFlight: 409, InFlightAlso: []int{425}, Mismatch: 422}
	refused425 := twoRequests(history.Attempt{Call: 10 * time.Millisecond, Return: 12 * time.Millisecond, Status: 425, Outcome: history.Rejected}, one)
	if o := Judge(refused425, early, false); !o.Holds() || o.Class(early) != "refused" {
		t.Errorf("refused 425 under a profile whose in-flight set has it: %+v, class %s", o, o.Class(early))
	}
	late425 := refused425
	late425.Answered = []int{1, 2}
	late425.Probe = &history.Attempt{ID: "o2-t1", Status: 425, Outcome: history.Rejected}
	if o := Judge(late425, early, false); !slices.Equal(o.Anomalies, []check.Anomaly{check.StuckKey}) {
		t.Errorf("a 425 with nothing in flight, and after the claim timeout, under %s: %+v", early.Name, o)
	}
	waits := api.Profile{Name: "waits", MissingKey: 400, InFlight: 409, Mismatch: 422, InFlightWait: true}
	if o := Judge(waited, waits, false); !o.Holds() || o.Class(waits) != "replayed" {
		t.Errorf("waited, under a profile that waits: %+v", o)
	}
}

// TestSentenceAndLattice: the sentence counts what held and what broke,
// varying orders apart; the lattice marks a node lost when every order
// through it failed.
func TestSentenceAndLattice(t *testing.T) {
	run := func(order string, class string, holds bool, varied ...string) Run {
		o, _ := ParseOrder(order, 2)
		var steps []Step
		for _, r := range o {
			steps = append(steps, Step{Request: r, From: "p"})
		}
		out := Run{Execution: Execution{Order: o, Steps: steps}, Class: class, Varied: varied}
		if !holds {
			out.Outcome.Anomalies = []check.Anomaly{check.Anomaly(class)}
		}
		return out
	}
	r := Result{Target: "t", Case: "duplicate", Requests: 2, Preemptions: -1, Runs: []Run{
		run("AABB", "held", true), run("ABAB", "double_charge", false), run("ABBA", "double_charge", false),
		run("BBAA", "held", true), run("BABA", "held", true, "double_charge"), run("BAAB", "double_charge", false)}}
	if s := r.Sentence(); s != "t, duplicate (2 requests, every order): double_charge in 3 of 6 orders (1 order varying across re-runs)" {
		t.Errorf("sentence %q", s)
	}
	if f := r.Failing(); len(f) != 3 || f[0].Order.String() != "ABAB" {
		t.Errorf("failing %v", f)
	}
	l := LatticeOf(r.Runs)
	if !l.Nodes[1][1].Lost() || !l.Nodes[0][2].Safe() || l.Nodes[0][0].Safe() || l.Nodes[0][0].Lost() {
		t.Errorf("lattice %+v", l.Nodes)
	}
}

// TestKillCases: a kill strikes at every point a request passes alone,
// never at its answer (a process killed after answering killed nothing
// of the request's), and shares the stores' links like a cut.
func TestKillCases(t *testing.T) {
	k, err := LookupKind("kill")
	if err != nil {
		t.Fatal(err)
	}
	points := []string{"after-check", "after-claim", "before-commit", "after-commit"}
	var got []string
	for _, c := range k.Expand(points) {
		got = append(got, c.Name())
	}
	if want := []string{"kill@after-check", "kill@after-claim", "kill@before-commit", "kill@after-commit"}; !slices.Equal(got, want) || !k.Shares() {
		t.Errorf("kill expands to %v (shares %v); want %v, shared", got, k.Shares(), want)
	}
	if _, err := ParseCase("kill@answer"); err == nil {
		t.Error("kill@answer parsed")
	}
	if lost, _ := LookupKind("lost-reply"); lost.Shares() {
		t.Error("a lost reply strikes nothing shared, yet runs one at a time")
	}
}
