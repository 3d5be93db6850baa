package check

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// holding is a1-1 executing keyA over [1, 300] ms on the server and a2-1, the
// same request sent at 10 ms, answered with a1-1's charge: b's options
// shape how (and when) the server answered the duplicate. extra are more
// attempts of the run.
func holding(p api.Profile, b []opt, extra ...history.Attempt) Input {
	atts := append([]history.Attempt{
		att(1, 1, keyA, 500, 0, served(1, 300), acked(201, "ch_1", "B1"), returned(310)),
		att(2, 1, keyA, 500, 10, append([]opt{acked(201, "ch_1", "B1")}, b...)...),
	}, extra...)
	return input(p, ledger(ch("ch_1", keyA, "a1-1", 500, 1)), atts...)
}

func TestHeldDuplicate(t *testing.T) {
	heldByA := []want{{HeldDuplicate, keyA, "acct_1", 0, ids("a2-1", "a1-1"), ids("ch_1")}}
	held := map[Anomaly]int{HeldDuplicate: 1}
	waits := api.Profile{Name: "waits", MissingKey: 400, InFlight: 409, Mismatch: 422, InFlightWait: true}
	noAttemptIDs := holding(api.IETF, []opt{served(11, 302), returned(312)})
	noAttemptIDs.Ledger.Charges[0].AttemptID = ""
	outlived := holding(api.IETF, []opt{served(11, 302), returned(312)})
	outlived.History.ClaimTimeout = ms(250)
	withinClaim := holding(api.IETF, []opt{served(11, 302), returned(312)})
	withinClaim.History.ClaimTimeout = ms(500)
	stalled := holding(api.IETF, []opt{unserved(), returned(312)})
	stalled.ChargeTime = ms(1) // the service charges in 1 ms: the 310 ms original was the client stalling
	asSlow := holding(api.IETF, []opt{unserved(), returned(312)})
	asSlow.ChargeTime = ms(290)
	runCases(t, []runCase{
		{name: "server log: held until the original finished, then replayed",
			in: holding(api.IETF, []opt{served(11, 302), returned(312)}), counts: held, findings: heldByA},
		{name: "released just before the original's log line",
			in: holding(api.IETF, []opt{served(11, 296), returned(305)}), counts: held, findings: heldByA},
		{name: "client timings only (a user's service)",
			in: holding(api.IETF, []opt{unserved(), returned(312)}), counts: held, findings: heldByA},
		{name: "client timings behind an original as slow as the service's measured charge",
			in: asSlow, counts: held, findings: heldByA},
		{name: "the ledger does not name the maker: the first answer is the original",
			in: noAttemptIDs, counts: held, findings: heldByA},
		{name: "within the claim timeout", in: withinClaim, counts: held, findings: heldByA},
		{name: "sent with the original, reached the server 5 ms before it", counts: held, findings: heldByA,
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 5, served(6, 300), acked(201, "ch_1", "B1"), returned(310)),
				att(2, 1, keyA, 500, 0, served(1, 302), acked(201, "ch_1", "B1"), returned(312)))},
		{name: "a refusal on another replica does not excuse it",
			in: holding(api.IETF, []opt{served(11, 302), returned(312)},
				att(3, 1, keyB, 300, 20, served(21, 23), rejected(409), returned(25), onReplica(1))),
			counts: held, findings: heldByA},
		{name: "stripe: held, replayed with the header", counts: held, findings: heldByA,
			in: holding(api.Stripe, []opt{served(11, 302), returned(312), replayed()})},

		{name: "answered 409 at once", in: holding(api.IETF, []opt{served(11, 13), rejected(409), returned(15)})},
		{name: "arrived as the original committed",
			in: holding(api.IETF, []opt{served(285, 302), returned(305)})},
		{name: "answered long after the original finished",
			in: holding(api.IETF, []opt{served(11, 500), returned(505)})},
		{name: "arrived before the original",
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 15, served(16, 300), acked(201, "ch_1", "B1"), returned(310)),
				att(2, 1, keyA, 500, 0, served(1, 302), acked(201, "ch_1", "B1"), returned(312)))},
		{name: "the replica refused another duplicate at once: the server was busy",
			in: holding(api.IETF, []opt{served(11, 302), returned(312)},
				att(3, 1, keyB, 300, 20, served(21, 23), rejected(409), returned(25)))},
		{name: "the replica's refusals were as slow: the server was busy",
			in: holding(api.IETF, []opt{served(11, 302), returned(312)},
				att(3, 1, keyB, 300, 20, served(21, 290), rejected(409), returned(292)))},
		{name: "the client saw the replica refuse (no server log)",
			in: holding(api.IETF, []opt{unserved(), returned(312)},
				att(3, 1, keyB, 300, 20, unserved(), rejected(409), returned(25)))},
		{name: "the replica refused with 425, outside ietf's set: still a refusal, the server was busy",
			in: holding(api.IETF, []opt{unserved(), returned(312)},
				att(3, 1, keyB, 300, 20, unserved(), rejected(425), returned(25)))},
		{name: "the original outlived its claim timeout", in: outlived},
		{name: "client timings behind an original far slower than the service charges: a stall", in: stalled},
		{name: "the profile waits by design", in: holding(waits, []opt{served(11, 302), returned(312)})},
		{name: "another payload is not a duplicate",
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 0, served(1, 300), acked(201, "ch_1", "B1"), returned(310)),
				att(2, 1, keyA, 500, 10, served(11, 302), rejected(422), returned(312), withFingerprint("other")))},
		{name: "client timings: 60 ms may be the client's own stall",
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 0, unserved(), acked(201, "ch_1", "B1"), returned(70)),
				att(2, 1, keyA, 500, 10, unserved(), acked(201, "ch_1", "B1"), returned(72)))},
		{name: "server log: 60 ms is a hold",
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 0, served(1, 70), acked(201, "ch_1", "B1"), returned(75)),
				att(2, 1, keyA, 500, 10, served(11, 72), acked(201, "ch_1", "B1"), returned(77))),
			counts: held, findings: heldByA},
		{name: "the duplicate timed out on the client and had no server view",
			in: holding(api.IETF, []opt{unserved(), timedOut()})},
	})
}

// TestHeldAtClaim: with the claim in the server's log, the claim's own
// wait decides, not the request's span: a claim that waited on the
// original's work is a hold however late a busy machine wrote its answer;
// a duplicate that stalled before it claimed is none, however well its
// span fits the original's, and neither is a try-claim, which cannot wait.
func TestHeldAtClaim(t *testing.T) {
	heldByA := []want{{HeldDuplicate, keyA, "acct_1", 0, ids("a2-1", "a1-1"), ids("ch_1")}}
	held := map[Anomaly]int{HeldDuplicate: 1}
	pair := func(o, b []opt) Input {
		return input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, append([]opt{served(1, 300), acked(201, "ch_1", "B1"), returned(310)}, o...)...),
			att(2, 1, keyA, 500, 10, append([]opt{served(11, 420), acked(201, "ch_1", "B1"), returned(430)}, b...)...))
	}
	runCases(t, []runCase{
		{name: "the claim waited until the original finished; the answer came 120 ms later",
			in: pair(nil, []opt{claimedAt(12, 296, 0)}), counts: held, findings: heldByA},
		{name: "released as the original's handler returned, its answer written 50 ms later",
			in: pair([]opt{claimedAt(2, 5, 250)}, []opt{claimedAt(12, 252, 0)}), counts: held, findings: heldByA},
		{name: "the duplicate stalled before its claim, which found the key answered at once",
			in: pair(nil, []opt{served(11, 302), claimedAt(290, 293, 0)})},
		{name: "the claim returned long before the original finished",
			in: pair(nil, []opt{claimedAt(12, 100, 0)})},
		{name: "the claim began as the original finished",
			in: pair(nil, []opt{claimedAt(285, 310, 0)})},
		{name: "a try-claim spanning the original's end on a busy machine never waited",
			in: pair(nil, []opt{triedAt(12, 296)})},
		{name: "the claim returned before the original's claim",
			in: pair([]opt{claimedAt(2, 299, 0)}, []opt{claimedAt(12, 295, 0)})},
	})
	r := Run(pair(nil, []opt{claimedAt(12, 296, 0)}))
	if d := r.Findings[0].Detail; !strings.Contains(d, "its claim on the key waited 284ms and returned 4ms before it finished") {
		t.Errorf("detail %q", d)
	}
}

func TestHeldDuplicateDetail(t *testing.T) {
	r := Run(holding(api.IETF, []opt{served(11, 302), returned(312)}))
	d := r.Findings[0].Detail
	for _, s := range []string{"attempt a2-1 arrived 10ms after attempt a1-1", "waited 289ms", "got its 201 (charge ch_1) 2ms after it finished",
		"the ietf profile answers 409 at once", "server's log"} {
		if !strings.Contains(d, s) {
			t.Errorf("detail %q lacks %q", d, s)
		}
	}
	in := holding(api.IETF, []opt{unserved(), returned(312)})
	if d := Run(in).Findings[0].Detail; !strings.Contains(d, "waited 300ms") || !strings.Contains(d, "client's timings") {
		t.Errorf("client detail %q", d)
	}
}
