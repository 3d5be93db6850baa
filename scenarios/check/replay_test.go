package check

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// probe marks an attempt as a replay probe.
func probe() opt { return func(a *history.Attempt) { a.ReplayProbe = true } }

// lone is a key whose first try committed and lost its answer (a dropped
// response), whose retry a1-2 is the one 2xx its client saw, and a replay
// probe a2-1 after the traffic; bodies of the retry and the probe as given.
func lone(p api.Profile, cmp ReplayCompare, retry, probed string, opts ...opt) Input {
	in := input(p, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
		att(1, 1, keyA, 500, 0, timedOut(), faulted("drop-response")),
		att(1, 2, keyA, 500, 1100, append([]opt{acked(201, "ch_1", retry), replayed()}, opts...)...),
		att(2, 1, keyA, 500, 1300, append([]opt{acked(201, "ch_1", probed), replayed(), probe()}, opts...)...),
	)
	in.Replay = cmp
	return in
}

var asJSON = ReplayCompare{JSON: true, Ignore: []string{"created", "meta.request_id", "items.at"}}

func TestReplayCompare(t *testing.T) {
	rm := map[Anomaly]int{ReplayMismatch: 1}
	probeDiffers := []want{{ReplayMismatch, keyA, "acct_1", 0, ids("a2-1", "a1-2"), ids("ch_1")}}
	const body = `{"id":"ch_1","amount":500,"created":1700000000,"meta":{"request_id":"r1","v":1},"items":[{"at":1,"n":2}]}`
	rerendered := `{"meta":{"v":1.0,"request_id":"r2"}, "amount":5e2,"id":"ch_1","created":1700000042,"items":[{"n":2,"at":9}]}`
	runCases(t, []runCase{
		{name: "bytes: the same body", in: lone(api.IETF, ReplayCompare{}, body, body)},
		{name: "bytes: a probe's re-rendered body after one 2xx", in: lone(api.IETF, ReplayCompare{}, body, rerendered),
			counts: rm, findings: probeDiffers},
		{name: "json: re-rendered, only ignored fields differ", in: lone(api.IETF, asJSON, body, rerendered)},
		{name: "json: a field not ignored differs", in: lone(api.IETF, asJSON, body, strings.Replace(rerendered, `"v":1.0`, `"v":2`, 1)),
			counts: rm, findings: probeDiffers},
		{name: "json: a member missing", in: lone(api.IETF, asJSON, body, strings.Replace(rerendered, `"amount":5e2,`, "", 1)),
			counts: rm, findings: probeDiffers},
		{name: "json: an array of another length", in: lone(api.IETF, asJSON, body, strings.Replace(rerendered, `[{"n":2,"at":9}]`, `[]`, 1)),
			counts: rm, findings: probeDiffers},
		{name: "json: the probe's body is not JSON", in: lone(api.IETF, asJSON, body, "oops"), counts: rm, findings: probeDiffers},
		{name: "json: neither body is JSON but both are equal", in: lone(api.IETF, asJSON, "ok", "ok")},
		{name: "another status, the same body", in: lone(api.IETF, ReplayCompare{}, body, body, func(a *history.Attempt) {
			if a.ReplayProbe {
				a.Status = 200
			}
		}), counts: rm, findings: probeDiffers},
	})
}

func TestReplayMismatchDetail(t *testing.T) {
	const body = `{"id":"ch_1","created":1}`
	for _, c := range []struct {
		name string
		in   Input
		want []string
	}{
		{"bytes, JSON fields named", lone(api.IETF, ReplayCompare{}, body, `{"id":"ch_1","created":2}`),
			[]string{"attempt a2-1, a replay probe sent after the traffic, got charge ch_1 with another body than the key's first 2xx (attempt a1-2)",
				"byte for byte, first at byte 24; as JSON, field created differs"}},
		{"bytes, the same JSON", lone(api.IETF, ReplayCompare{}, body, `{"created":1, "id":"ch_1"}`),
			[]string{"though both hold the same JSON"}},
		{"json, fields named", lone(api.IETF, ReplayCompare{JSON: true, Ignore: []string{"at"}}, body, `{"id":"ch_1","created":2,"x":[1]}`),
			[]string{"as JSON, ignoring at, fields created and x differ"}},
		{"json, not JSON", lone(api.IETF, ReplayCompare{JSON: true}, body, `<html>`), []string{"its body is not JSON"}},
		{"another status", lone(api.IETF, ReplayCompare{}, body, body, func(a *history.Attempt) {
			if a.ReplayProbe {
				a.Status = 200
			}
		}), []string{"got 200 with charge ch_1, where the key's first 2xx (attempt a1-2) got 201 with charge ch_1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Run(c.in)
			if len(r.Findings) != 1 {
				t.Fatalf("findings:\n%s", dump(r.Findings))
			}
			for _, w := range c.want {
				if !strings.Contains(r.Findings[0].Detail, w) {
					t.Errorf("detail %q lacks %q", r.Findings[0].Detail, w)
				}
			}
		})
	}
}

func TestReplayCompareCheck(t *testing.T) {
	for _, c := range []struct {
		in   ReplayCompare
		want string // "" valid
	}{
		{ReplayCompare{}, ""},
		{ReplayCompare{JSON: true}, ""},
		{ReplayCompare{JSON: true, Ignore: []string{"created", "meta.request_id"}}, ""},
		{ReplayCompare{Ignore: []string{"created"}}, "need the JSON comparison"},
		{ReplayCompare{JSON: true, Ignore: []string{"meta..id"}}, "dotted path"},
		{ReplayCompare{JSON: true, Ignore: []string{"."}}, "dotted path"},
		{ReplayCompare{JSON: true, Ignore: []string{" created"}}, "blanks"},
		{ReplayCompare{JSON: true, Ignore: []string{"a\x01"}}, "printable"},
		{ReplayCompare{JSON: true, Ignore: []string{strings.Repeat("a", 201)}}, "longer than"},
		{ReplayCompare{JSON: true, Ignore: make([]string, 33)}, "at most 32"},
	} {
		err := c.in.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%+v: error %v; want one line with %q", c.in, err, c.want)
		}
	}
	if got := asJSON.String(); got != "as JSON, ignoring created, meta.request_id and items.at" {
		t.Errorf("String() = %q", got)
	}
}

// TestHugeExponentIsNotExpanded: a number is compared by value only when
// its exponent is small; a hostile one is compared as written, at once.
func TestHugeExponentIsNotExpanded(t *testing.T) {
	if sameNumber("1e999999999", "10e999999998") || !sameNumber("1.50", "15e-1") || sameNumber("1", "2") {
		t.Fatal("sameNumber")
	}
}

func TestLoneReplayHeader(t *testing.T) {
	sc := map[Anomaly]int{StatusContract: 1}
	noHeader := func(a *history.Attempt) { a.Replayed = false }
	// the retry a1-2 is the key's one 2xx; the charge came from a1-1
	loneRetry := func(p api.Profile, opts ...opt) Input {
		return input(p, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, timedOut(), faulted("drop-response")),
			att(1, 2, keyA, 500, 1100, append([]opt{acked(201, "ch_1", "B1")}, opts...)...),
		)
	}
	noAttemptIDs := loneRetry(api.Stripe)
	noAttemptIDs.Ledger.Charges[0].AttemptID = ""
	noAttemptIDs.History.Attempts[0].Server.ChargeID = "ch_1" // the server answered a1-1 with ch_1, then the proxy dropped it
	noChargeIDs := loneRetry(api.Stripe)
	noChargeIDs.Ledger.NoChargeIDs = true
	ownCharge := input(api.Stripe, ledger(ch("ch_1", keyA, "a1-2", 500, 1)),
		att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
		att(1, 2, keyA, 500, 1100, acked(201, "ch_1", "B1")),
	)
	// a1-1 charges and its answer comes back late; duplicate a2-1 got the
	// replay (with the header) first: a1-1 executed, no replay
	originalLast := input(api.Stripe, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
		att(1, 1, keyA, 500, 0, served(1, 30), acked(201, "ch_1", "B1"), returned(90)),
		att(2, 1, keyA, 500, 35, served(36, 38), acked(201, "ch_1", "B1"), replayed(), returned(40)),
	)
	// the ledger names no attempt and no server logged the answers: a 2xx
	// without the header is judged a replay only if sent after another 2xx
	// of the key had come back
	unknownMaker := func(call int) Input {
		in := input(api.Stripe, ledger(ch("ch_1", keyA, "", 500, 1)),
			att(1, 1, keyA, 500, 0, unserved(), acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 500, call, unserved(), acked(201, "ch_1", "B1")),
		)
		return in
	}
	runCases(t, []runCase{
		{name: "stripe: the one 2xx replays another attempt's charge without the header", in: loneRetry(api.Stripe),
			counts: sc, findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a1-2", "a1-1"), ids("ch_1")}}},
		{name: "stripe: with the header", in: loneRetry(api.Stripe, replayed())},
		{name: "ietf: no header required", in: loneRetry(api.IETF)},
		{name: "stripe: the one 2xx made its own charge", in: ownCharge},
		{name: "stripe: no attempt id in the ledger, the server's earlier answer names the charge", in: noAttemptIDs,
			counts: sc, findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a1-2", "a1-1"), ids("ch_1")}}},
		{name: "stripe: no charge ids, the ledger's attempt id", in: noChargeIDs,
			counts: sc, findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a1-2", "a1-1"), ids("ch_1")}}},
		{name: "stripe: a probe without the header after one 2xx", in: lone(api.Stripe, ReplayCompare{}, "B1", "B1", noHeader),
			counts: map[Anomaly]int{StatusContract: 2}, findings: []want{
				{StatusContract, keyA, "acct_1", 0, ids("a1-2", "a1-1"), ids("ch_1")},
				{StatusContract, keyA, "acct_1", 0, ids("a2-1", "a1-1"), ids("ch_1")},
			}},
		{name: "stripe: the original's own answer came back after a replay's", in: originalLast},
		{name: "stripe: unknown maker, a 2xx sent after another came back", in: unknownMaker(1100),
			counts: sc, findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a2-1", "a1-1"), ids("ch_1")}}},
		{name: "stripe: unknown maker, two 2xx in flight together", in: unknownMaker(20)},
	})
	r := Run(loneRetry(api.Stripe))
	if d := r.Findings[0].Detail; !strings.Contains(d, "got charge ch_1, which the ledger says attempt a1-1 made, without the Idempotent-Replayed header that the stripe profile requires on every replay") {
		t.Errorf("detail %q", d)
	}
}
