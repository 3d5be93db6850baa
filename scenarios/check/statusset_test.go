package check

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
)

// split is a profile of status sets: a duplicate in flight may get 409 or
// 425 (the source text's "409 Conflict (or 425 Too Early)"), another
// payload under a key 422 or 400.
var split = api.Profile{Name: "split", MissingKey: 400, InFlight: 409, InFlightAlso: []int{425},
	Mismatch: 422, MismatchAlso: []int{400}}

// under is in judged against profile p.
func under(p api.Profile, in Input) Input {
	in.Profile = p
	return in
}

// TestStatusSets: every status of a profile's set is accepted where the
// profile's status was (a duplicate in flight, a payload mismatch, a stuck
// probe), any other is judged as before, and the finding names the set.
func TestStatusSets(t *testing.T) {
	sc := map[Anomaly]int{StatusContract: 1}
	both := []want{{StatusContract, keyA, "acct_1", 0, ids("a2-1", "a1-1"), nil}}
	mismatch := func(status int) Input {
		return input(split, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 700, 100, rejected(status)))
	}
	samePayload := func(status int) Input {
		return input(split, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 500, 5, served(60, 62), rejected(status)))
	}
	stuck := func(p api.Profile) Input {
		return probing(input(p, ledger(),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 1840, rejected(425))))
	}
	runCases(t, []runCase{
		{name: "425 in flight, in the set", in: under(split, beside([]opt{rejected(425), returned(60)}))},
		{name: "409 in flight, in the set", in: under(split, beside([]opt{rejected(409), returned(60)}))},
		{name: "425 in flight under ietf", in: beside([]opt{rejected(425), returned(60)}), counts: sc, findings: both},
		{name: "423 in flight, outside the set", in: under(split, beside([]opt{rejected(423), returned(60)})), counts: sc, findings: both},
		{name: "a crowd answered 425 but one 503", in: under(split, crowdOf(425)), counts: sc,
			findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a5-1", "a1-1"), nil}}},

		{name: "another payload answered 400, in the set", in: mismatch(400)},
		{name: "another payload answered 422, in the set", in: mismatch(422)},
		{name: "another payload answered 425, in flight", in: mismatch(425)},
		{name: "another payload answered 403", in: mismatch(403), counts: sc, findings: both},
		{name: "the same payload answered 422, a mismatch status", in: samePayload(422), counts: sc, findings: both},
		{name: "the same payload answered 400, any bad request's too", in: samePayload(400)},

		{name: "a probe still 425: stuck", in: stuck(split), counts: map[Anomaly]int{StuckKey: 1},
			findings: []want{{StuckKey, keyA, "acct_1", 0, ids("a1-2", "a1-1"), nil}}},
		{name: "a probe 425 under ietf is no claim", in: stuck(api.IETF)},
	})
	for _, c := range []struct {
		in   Input
		want string
	}{
		{under(split, beside([]opt{rejected(423), returned(60)})), "the split profile answers 409 or 425 at once to a duplicate in flight"},
		{beside([]opt{rejected(425), returned(60)}), "the ietf profile answers 409 at once to a duplicate in flight"},
		{mismatch(403), "got 403; the split profile answers 422 or 400 (or 409 or 425 while the first is in flight)"},
	} {
		r := Run(c.in)
		if len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Detail, c.want) {
			t.Errorf("findings %+v; want one saying %q", r.Findings, c.want)
		}
	}
}

// crowdOf is crowd with its duplicates answered status instead of 409.
func crowdOf(status int) Input {
	in := crowd(false)
	for i := range in.History.Attempts {
		if a := &in.History.Attempts[i]; a.Status == 409 {
			rejected(status)(a)
		}
	}
	return in
}
