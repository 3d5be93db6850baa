package check

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// declinedBody is the body of the crafted refusals.
const declinedBody = `{"code":"insufficient_funds","message":"insufficient funds"}`

// declined answers the business refusal with body.
func declined(body string) opt {
	return func(a *history.Attempt) { a.Outcome, a.Status, a.Body = history.Rejected, api.StatusDeclined, body }
}

// forgetful decides a declined key again, by design.
var forgetful = api.Profile{Name: "forgetful", MissingKey: 400, InFlight: 409, Mismatch: 422, RedecideRefusals: true}

func TestRefusalNotReplayed(t *testing.T) {
	runCases(t, []runCase{{
		name: "clean: the refusal replayed; 409, 429 and 5xx are not completed answers",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, declined(declinedBody), replayed()),
			att(3, 1, keyA, 500, 120, rejected(409)), // while a2-1 was on the server
			att(4, 1, keyA, 500, 300, rejected(429)),
			att(5, 1, keyA, 500, 400, failed(503), faulted("db-cut")),
			att(6, 1, keyA, 500, 500, timedOut()),
		),
	}, {
		name: "declined, then a retry charged once the account was funded",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "a2-1", 500, 1)),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, acked(201, "ch_1", "B1")),
			att(3, 1, keyA, 500, 200, acked(201, "ch_1", "B1"), replayed()),
		),
		counts: map[Anomaly]int{RefusalNotReplayed: 2},
		findings: []want{
			{RefusalNotReplayed, keyA, "acct_1", 500, ids("a2-1", "a1-1"), ids("ch_1")},
			{RefusalNotReplayed, keyA, "acct_1", 0, ids("a3-1", "a1-1"), ids("ch_1")},
		},
	}, {
		name: "declined again with another body",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, declined(strings.Replace(declinedBody, "insufficient funds", "no money", 1))),
		),
		counts:   map[Anomaly]int{RefusalNotReplayed: 1},
		findings: []want{{RefusalNotReplayed, keyA, "acct_1", 0, ids("a2-1", "a1-1"), nil}},
	}, {
		name: "another 4xx to the same body",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, rejected(404)),
		),
		counts:   map[Anomaly]int{RefusalNotReplayed: 1},
		findings: []want{{RefusalNotReplayed, keyA, "acct_1", 0, ids("a2-1", "a1-1"), nil}},
	}, {
		name: "charged, answer lost, then declined: the refusal lies",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, timedOut()),
			att(1, 2, keyA, 500, 1100, declined(declinedBody)),
		),
		counts:   map[Anomaly]int{RefusalNotReplayed: 1},
		findings: []want{{RefusalNotReplayed, keyA, "acct_1", 500, ids("a1-1", "a1-2"), ids("ch_1")}},
	}, {
		name: "a charge by an unrecorded attempt",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "", 500, 1)),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
		),
		counts:   map[Anomaly]int{RefusalNotReplayed: 1},
		findings: []want{{RefusalNotReplayed, keyA, "acct_1", 500, ids("a1-1"), ids("ch_1")}},
	}, {
		name: "a 409 first, then the refusal, replayed: a 409 is not the key's answer",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, rejected(409)),
			att(1, 2, keyA, 500, 100, declined(declinedBody)),
			att(2, 1, keyA, 500, 200, declined(declinedBody), replayed()),
		),
	}, {
		name: "a 5xx replayed to a declined key is a cached error, not a refusal finding",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, failed(503), replayed()),
		),
		counts:   map[Anomaly]int{CachedError: 1},
		findings: []want{{CachedError, keyA, "acct_1", 0, ids("a2-1"), nil}},
	}, {
		name: "another payload after the decline is judged as a mismatch, not as a retry",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 700, 100, rejected(422)),
		),
	}})
}

// TestRefusalAfterTheKeyExpired: a retry that starts more than the key's
// TTL after the refusal is a new request; it may charge.
// TestStuckAfterRefusal: a retry of a declined key turned away with the
// in-flight status while no other attempt of the key was on the server
// (none but others turned away alike) shows the key stuck; one that met
// another attempt of the key there does not, nor one the server did not
// log (the client's timings cannot tell a service still at work).
func TestStuckAfterRefusal(t *testing.T) {
	runCases(t, []runCase{{
		name: "409 twice with nothing in flight, then the refusal replayed",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, rejected(409)),
			att(3, 1, keyA, 500, 110, rejected(409)),
			att(2, 2, keyA, 500, 300, declined(declinedBody), replayed()),
		),
		counts:   map[Anomaly]int{StuckKey: 1},
		findings: []want{{StuckKey, keyA, "acct_1", 0, ids("a2-1", "a3-1", "a1-1"), nil}},
	}, {
		name: "409 while another attempt of the key was on the server",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, declined(declinedBody), replayed()),
			att(3, 1, keyA, 500, 130, rejected(409)),
		),
	}, {
		name: "409 before the refusal was answered",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 20, rejected(409)),
		),
	}, {
		name: "409 the server did not log",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, declined(declinedBody)),
			att(2, 1, keyA, 500, 100, rejected(409), unserved()),
		),
	}})
}

func TestRefusalAfterTheKeyExpired(t *testing.T) {
	in := input(api.IETF, ledger(ch("ch_1", keyA, "a2-1", 500, 1)),
		att(1, 1, keyA, 500, 0, declined(declinedBody)),
		att(2, 1, keyA, 500, 2000, acked(201, "ch_1", "B1")),
	)
	in.History.KeyTTL = time.Second
	assertReport(t, Run(in), nil, 0, nil)
	in.History.KeyTTL = 5 * time.Second
	assertReport(t, Run(in), map[Anomaly]int{RefusalNotReplayed: 1}, 0,
		[]want{{RefusalNotReplayed, keyA, "acct_1", 500, ids("a2-1", "a1-1"), ids("ch_1")}})
}

// TestRefusalComparedAsReplays: a declined answer rendered anew passes
// when the fields it renders anew are ignored, and fails on another field.
func TestRefusalComparedAsReplays(t *testing.T) {
	in := input(api.IETF, ledger(),
		att(1, 1, keyA, 500, 0, declined(`{"code":"insufficient_funds","at":1}`)),
		att(2, 1, keyA, 500, 100, declined(`{"at": 2, "code": "insufficient_funds"}`)),
	)
	in.Replay = ReplayCompare{JSON: true, Ignore: []string{"at"}}
	assertReport(t, Run(in), nil, 0, nil)
	in.Replay = ReplayCompare{JSON: true}
	r := Run(in)
	assertReport(t, r, map[Anomaly]int{RefusalNotReplayed: 1}, 0, []want{{RefusalNotReplayed, keyA, "acct_1", 0, ids("a2-1", "a1-1"), nil}})
	if !strings.Contains(r.Findings[0].Detail, "field at differs") {
		t.Errorf("detail %q does not say which field differs", r.Findings[0].Detail)
	}
}

// TestRefusalDecidedAgainIsADeviation: under a profile whose service
// decides a declined key again, the same history passes, and the finding
// is kept as a deviation naming the profile.
func TestRefusalDecidedAgainIsADeviation(t *testing.T) {
	in := input(forgetful, ledger(ch("ch_1", keyA, "a2-1", 500, 1)),
		att(1, 1, keyA, 500, 0, declined(declinedBody)),
		att(2, 1, keyA, 500, 100, acked(201, "ch_1", "B1")),
	)
	r := Run(in)
	assertReport(t, r, nil, 0, nil)
	if len(r.Deviations) != 1 || r.Deviations[0].Anomaly != RefusalNotReplayed || r.Deviations[0].Money != 500 ||
		!strings.Contains(r.Deviations[0].Detail, "forgetful profile decides a declined key again") {
		t.Fatalf("deviations %+v; want the charged retry, naming the profile", r.Deviations)
	}
	assertDetail(t, r.Deviations[0])
	in.Profile = api.Stripe
	if r := Run(in); r.Counts[RefusalNotReplayed] != 1 || len(r.Deviations) != 0 {
		t.Fatalf("stripe replays declines: counts %v, deviations %v", r.Counts, r.Deviations)
	}
}
