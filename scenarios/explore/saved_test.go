package explore

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// savedResult is an exploration of two duplicates as a document keeps
// it: an order that held (B refused), its re-run, and an order whose
// ledger shows a double charge.
func savedResult(t *testing.T) Result {
	t.Helper()
	one := history.Charge{ID: "ch_1", Key: "k", Account: "acct", Amount: 100, AttemptID: "o0-t1", Seq: 1}
	refused := twoRequests(history.Attempt{Call: 10 * time.Millisecond, Return: 12 * time.Millisecond, Status: 409, Outcome: history.Rejected}, one)
	twice := twoRequests(history.Attempt{Call: 10 * time.Millisecond, Return: 40 * time.Millisecond, Status: 201, Outcome: history.Acked, ChargeID: "ch_2", Body: "y"},
		one, history.Charge{ID: "ch_2", Key: "k", Account: "acct", Amount: 100, AttemptID: "o1-t1", Seq: 2})
	twice.Order = Order{1, 0}
	held := Judged(refused, api.IETF, false)
	held.Reruns = []Execution{refused}
	res := Result{Target: "t", Case: "duplicate", Requests: 2, Preemptions: -1, Profile: api.IETF,
		Runs: []Run{held, Judged(twice, api.IETF, false)}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// TestRejudge: a saved exploration is judged again from its records
// alone, to what they show: the same verdict as they are; a double charge
// edited out of the ledger holds; a re-run edited to charge again makes
// its order vary; a profile edited to wait by design changes the class.
func TestRejudge(t *testing.T) {
	res := savedResult(t)
	if err := res.Check(); err != nil {
		t.Fatal(err)
	}
	again := res.Rejudge()
	if again.Verdict() != scenarios.Fail || again.Sentence() != res.Sentence() || again.Runs[1].Class != string(check.DoubleCharge) {
		t.Errorf("as saved: %s, want %s", again.Sentence(), res.Sentence())
	}
	edited := savedResult(t)
	edited.Runs[1].Ledger.Charges = edited.Runs[1].Ledger.Charges[:1]
	edited.Runs[1].Attempts[1].ChargeID, edited.Runs[1].Attempts[1].Body, edited.Runs[1].Attempts[1].Replayed = "ch_1", "x", true
	if v := edited.Runs[1].Class; v != string(check.DoubleCharge) {
		t.Fatalf("the saved class is kept until judged again: %s", v)
	}
	if got := edited.Rejudge(); got.Verdict() != scenarios.Pass || got.Runs[1].Class != ClassReplayed {
		t.Errorf("the second charge edited out: %s (%s)", got.Sentence(), got.Runs[1].Class)
	}
	varied := savedResult(t)
	varied.Runs[0].Reruns[0] = varied.Runs[1].Execution
	got := varied.Rejudge()
	if !slices.Equal(got.Runs[0].Varied, []string{string(check.DoubleCharge)}) || len(got.Varying()) != 1 {
		t.Errorf("a re-run that charged twice: varied %v", got.Runs[0].Varied)
	}
	varied.Runs[0].Reruns, varied.Runs[0].NotRerun = nil, []string{"the order left its path"}
	if got := varied.Rejudge(); !slices.Equal(got.Runs[0].Varied, []string{"not run again: the order left its path"}) {
		t.Errorf("a re-run that could not run: varied %v", got.Runs[0].Varied)
	}
}

// TestCheckSaved: a saved result that the judge or the renderers could
// not read (an unknown case, a request it did not schedule, no profile)
// is refused with the order at fault named.
func TestCheckSaved(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(*Result)
		want string
	}{
		"case":     {func(r *Result) { r.Case = "nope" }, `unknown case "nope"`},
		"every":    {func(r *Result) { r.Case = "lost-reply" }, "strikes at one point"},
		"requests": {func(r *Result) { r.Requests = 4 }, "4 requests"},
		"profile":  {func(r *Result) { r.Profile = api.Profile{} }, "no profile"},
		"step":     {func(r *Result) { r.Runs[1].Steps[0].Request = 2 }, "order BA: a step of a request"},
		"rerun":    {func(r *Result) { r.Runs[0].Reruns[0].Attempts = make([]history.Attempt, 3) }, "order AB: 3 attempts"},
		"empty":    {func(r *Result) { r.Runs[0].Order = nil }, "no choice"},
	} {
		res := savedResult(t)
		c.edit(&res)
		if err := res.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
