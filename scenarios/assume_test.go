package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
)

// TestAssumeAcceptedNamesTheCause: a run in which no keyed charge was
// accepted is inconclusive, and its reason points where the trouble is: a
// request the service refused (4xx) at the request's shape, a service that
// failed every charge (5xx) at the service, not at --body or --path.
func TestAssumeAcceptedNamesTheCause(t *testing.T) {
	obs := func(statuses ...int) Observation {
		var o Observation
		for _, s := range statuses {
			o.History.Attempts = append(o.History.Attempts, history.Attempt{Key: "k", Status: s, Outcome: history.Rejected})
		}
		return o
	}
	cases := []struct {
		name     string
		o        Observation
		want, no string
	}{
		{"refused", obs(400, 400, 422), "check --body, --path and --accounts", "server error"},
		{"failed", obs(503, 503, 500), "every answer was a server error (500 ×1, 503 ×2)", "--body"},
		{"a 4xx among the 5xx", obs(503, 404), "check --body", "server error"},
		{"timed out", obs(409, 0, 0, 0), "3 of 4 requests got no answer within the client's timeout (answers: 409 ×1)", "--body"},
	}
	for _, c := range cases {
		got := assumeAccepted(c.o)
		if len(got) != 1 || !strings.Contains(got[0], c.want) || strings.Contains(got[0], c.no) {
			t.Errorf("%s: assumeAccepted = %q, want one reason with %q and without %q", c.name, got, c.want, c.no)
		}
	}
	acked := obs(503)
	acked.History.Attempts = append(acked.History.Attempts, history.Attempt{Key: "k", Status: 201, Outcome: history.Acked})
	if got := assumeAccepted(acked); got != nil {
		t.Errorf("a run with an accepted charge: assumeAccepted = %q, want nil", got)
	}
}

// TestAssumeAnsweredSaysTooSlow: a service's run in which no request got
// an answer in time and no key holds a charge proves nothing, and says the
// service was too slow or stopped; one answer, or one charge (the service
// worked: judged on it), and it says nothing.
func TestAssumeAnsweredSaysTooSlow(t *testing.T) {
	var o Observation
	for range 3 {
		o.History.Attempts = append(o.History.Attempts, history.Attempt{Key: "k", Outcome: history.Indeterminate, Err: "timeout"})
	}
	got := assumeService(o)
	if len(got) != 1 || !strings.Contains(got[0], "none of the 3 requests got an HTTP answer") || !strings.Contains(got[0], "too slow") {
		t.Errorf("no answer, no charge: %q; want one reason saying the service was too slow", got)
	}
	charged := o
	charged.Ledger.Charges = []history.Charge{{ID: "ch", Key: "k"}}
	if got := assumeService(charged); got != nil {
		t.Errorf("no answer, a charge: %q; want it judged on its charge", got)
	}
	answered := o
	answered.History.Attempts = append(slices.Clone(o.History.Attempts), history.Attempt{Key: "k", Status: 409, Outcome: history.Rejected})
	if got := assumeAnswered(answered); got != nil {
		t.Errorf("an answer: %q; want nothing", got)
	}
}
