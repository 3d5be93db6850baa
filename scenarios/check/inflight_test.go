package check

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// beside is a user's service (no server log): a1-1 executing keyA from 0
// to 215 ms on the client's timings, and a2-1, the same request sent at
// 54 ms, answered as b says; extra are more attempts of the run.
func beside(b []opt, extra ...history.Attempt) Input {
	atts := append([]history.Attempt{
		att(1, 1, keyA, 500, 0, unserved(), acked(201, "ch_1", "B1"), returned(215)),
		att(2, 1, keyA, 500, 54, append([]opt{unserved()}, b...)...),
	}, extra...)
	return input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)), atts...)
}

// TestWrongStatusInFlight: on a service that logs nothing, the client's
// own timings prove a duplicate in flight (sent before its key's first
// request was answered); a 5xx to it, or an error status other than the
// in-flight one beside a first request that succeeded, with no fault on
// it nor on a store link while it flew, is a status_contract naming both
// attempts and their times.
func TestWrongStatusInFlight(t *testing.T) {
	both := []want{{StatusContract, keyA, "acct_1", 0, ids("a2-1", "a1-1"), nil}}
	wrong := map[Anomaly]int{StatusContract: 1}
	faultedLink := beside([]opt{failed(503), returned(190)})
	faultedLink.Faulted = []Window{{From: ms(100), To: ms(400)}}
	faultedElsewhere := beside([]opt{failed(503), returned(190)})
	faultedElsewhere.Faulted = []Window{{From: ms(500), To: ms(900)}}
	runCases(t, []runCase{
		{name: "503 while the first was in flight", in: beside([]opt{failed(503), returned(190)}), counts: wrong, findings: both},
		{name: "423 beside a first that succeeded", in: beside([]opt{rejected(423), returned(60)}), counts: wrong, findings: both},
		{name: "a store link faulted elsewhere in the run", in: faultedElsewhere, counts: wrong, findings: both},
		{name: "the first got 503 while its duplicate was in flight", counts: wrong,
			findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a1-1", "a2-1"), nil}},
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a2-1", 500, 1)),
				att(1, 1, keyA, 500, 0, unserved(), failed(503), returned(215)),
				att(2, 1, keyA, 500, 54, unserved(), acked(201, "ch_1", "B1"), returned(400)))},

		{name: "409 at once", in: beside([]opt{rejected(409), returned(60)})},
		{name: "429: the client's rate, not the key", in: beside([]opt{rejected(429), returned(60)})},
		{name: "a fault placed on it", in: beside([]opt{failed(503), returned(190), faulted("drop-response")})},
		{name: "a store link faulted while it flew", in: faultedLink},
		{name: "sent after the first was answered: no duplicate in flight",
			in: beside([]opt{failed(503), func(a *history.Attempt) { a.Call, a.Return = ms(220), ms(230) }})},
		{name: "a server log without it: it never reached the server", counts: map[Anomaly]int{},
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 0, served(1, 210), acked(201, "ch_1", "B1"), returned(215)),
				att(2, 1, keyA, 500, 54, unserved(), failed(503), returned(190)))},
	})
	r := Run(beside([]opt{failed(503), returned(190)}))
	for _, f := range r.Findings {
		for _, part := range []string{"a2-1 was sent 54ms into attempt a1-1", "in flight from 0s to 215ms", "got 503 at 190ms", "the client's timings"} {
			if !strings.Contains(f.Detail, part) {
				t.Errorf("detail %q lacks %q", f.Detail, part)
			}
		}
	}
}

// TestHeldBehindTheHarness: a duplicate that waited on an original the
// harness held (a gate of a second) is judged on the original's own time:
// held, where without the harness's hold taken out the original looks far
// slower than the service charges (a stall, no finding).
func TestHeldBehindTheHarness(t *testing.T) {
	gated := func(held bool) Input {
		in := input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, unserved(), acked(201, "ch_1", "B1"), returned(1310)),
			att(2, 1, keyA, 500, 2, unserved(), acked(201, "ch_1", "B1"), returned(1312)))
		in.ChargeTime = ms(280)
		if held {
			in.Held = map[string]time.Duration{"a1-1": ms(1000)}
		}
		return in
	}
	runCases(t, []runCase{
		{name: "the gate's second taken out", in: gated(true), counts: map[Anomaly]int{HeldDuplicate: 1},
			findings: []want{{HeldDuplicate, keyA, "acct_1", 0, ids("a2-1", "a1-1"), ids("ch_1")}}},
		{name: "without it the original looks stalled", in: gated(false)},
	})
}

// TestHeldOnAConnectionGivenUp: a retry whose client gave up while the
// original was in flight (delayed inside by the harness, its own client
// gone too) is judged on the answers that came later on the connections
// left open: it waited for the original and got its 2xx as the original
// committed, a held duplicate; without the late answers there is nothing
// to judge.
func TestHeldOnAConnectionGivenUp(t *testing.T) {
	given := func(late bool) Input {
		o := att(1, 1, keyA, 500, 0, unserved(), timedOut(), returned(80))
		b := att(1, 2, keyA, 500, 109, unserved(), timedOut(), returned(189))
		if late {
			o.Late = &history.Late{At: ms(575), Status: 201, ChargeID: "ch_1"}
			b.Late = &history.Late{At: ms(577), Status: 201, ChargeID: "ch_1", Replayed: true}
		}
		in := input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)), o, b)
		in.ChargeTime, in.Held = ms(280), map[string]time.Duration{"a1-1": ms(200)}
		return in
	}
	runCases(t, []runCase{
		{name: "late answers", in: given(true), counts: map[Anomaly]int{HeldDuplicate: 1},
			findings: []want{{HeldDuplicate, keyA, "acct_1", 0, ids("a1-2", "a1-1"), ids("ch_1")}}},
		{name: "none came", in: given(false)},
	})
	for _, f := range Run(given(true)).Findings {
		if !strings.Contains(f.Detail, "its client had given up on at 189ms") {
			t.Errorf("detail %q does not say the answer came after its client gave up", f.Detail)
		}
	}
}
