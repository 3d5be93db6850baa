package check

import (
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// holdPair is a hold-probe pair on key: first at 0 ms answered at 400 ms
// with ch_<key>, its duplicate sent at 130 ms and answered as dup says.
func holdPair(op int, key, charge string, at int, dup ...opt) []history.Attempt {
	probe := func(a *history.Attempt) { a.HoldProbe, a.Server = true, nil }
	first := att(op, 1, key, 500, at, acked(201, charge, "B"), returned(at+400), probe)
	second := att(op+1, 1, key, 500, at+130, append([]opt{probe}, dup...)...)
	return []history.Attempt{first, second}
}

// holdInput is the pairs on a ledger holding each first request's charge.
func holdInput(p api.Profile, pairs ...[]history.Attempt) Input {
	var atts []history.Attempt
	var chs []history.Charge
	for i, pair := range pairs {
		atts = append(atts, pair...)
		chs = append(chs, ch(pair[0].ChargeID, pair[0].Key, pair[0].ID, 500, int64(i+1)))
	}
	return input(p, ledger(chs...), atts...)
}

// TestHoldProbes: a duplicate sent while its first request was in flight
// that gets the first's 2xx only once the first is answered is held; one
// refused at once is not; a service that refused any in-flight duplicate
// holds none; a duplicate sent after its first was answered decides
// nothing; a profile that waits by design finds none.
func TestHoldProbes(t *testing.T) {
	held := []opt{acked(201, "ch_1", "B"), returned(402), replayed()}
	heldB := []opt{acked(201, "ch_2", "B"), returned(2402), replayed()}
	refused := []opt{rejected(409), returned(135)}
	for _, c := range []struct {
		name  string
		in    Input
		held  int
		holds HoldProbes
	}{
		{"two held pairs", holdInput(api.IETF, holdPair(0, keyA, "ch_1", 0, held...), holdPair(2, keyB, "ch_2", 2000, heldB...)),
			2, HoldProbes{Pairs: 2, Held: 2}},
		{"refused at once", holdInput(api.IETF, holdPair(0, keyA, "ch_1", 0, refused...)), 0, HoldProbes{Pairs: 1, Refused: 1}},
		{"one refused: the late one was the machine", holdInput(api.IETF, holdPair(0, keyA, "ch_1", 0, refused...),
			holdPair(2, keyB, "ch_2", 2000, heldB...)), 0, HoldProbes{Pairs: 2, Held: 1, Refused: 1}},
		{"sent after the first was answered", holdInput(api.IETF, func() []history.Attempt {
			p := holdPair(0, keyA, "ch_1", 0, held...)
			p[1].Call, p[1].Return = ms(450), ms(460)
			return p
		}()), 0, HoldProbes{Pairs: 1, Undecided: 1, Early: 1, FirstSlowest: ms(400)}},
		{"a first request answered at once", holdInput(api.IETF, func() []history.Attempt {
			p := holdPair(0, keyA, "ch_1", 0, held...)
			p[0].Return, p[1].Call, p[1].Return = ms(12), ms(130), ms(140)
			return p
		}()), 0, HoldProbes{Pairs: 1, Undecided: 1, Early: 1, FirstSlowest: ms(12)}},
		{"answered long after the first: slowed by something else", holdInput(api.IETF, holdPair(0, keyA, "ch_1", 0,
			acked(201, "ch_1", "B"), returned(700), replayed())), 0, HoldProbes{Pairs: 1, Undecided: 1, FirstSlowest: ms(400)}},
		{"a duplicate answered 503 while the first was in flight", holdInput(api.IETF, holdPair(0, keyA, "ch_1", 0,
			failed(503), returned(300))), 0, HoldProbes{Pairs: 1, Failed: 1}},
		{"a first request answered 503 while its duplicate was in flight", func() Input {
			p := holdPair(0, keyA, "ch_1", 0, acked(201, "ch_1", "B"), returned(500))
			p[0].Status, p[0].Outcome, p[0].ChargeID, p[0].Body = 503, history.Indeterminate, "", ""
			return input(api.IETF, ledger(ch("ch_1", keyA, p[1].ID, 500, 1)), p...)
		}(), 0, HoldProbes{Pairs: 1, Failed: 1}},
		{"a duplicate with no answer", holdInput(api.IETF, holdPair(0, keyA, "ch_1", 0, timedOut(), returned(2130))),
			0, HoldProbes{Pairs: 1, Undecided: 1, Unanswered: 1, FirstSlowest: ms(400)}},
		{"a first request refused", holdInput(api.IETF, func() []history.Attempt {
			p := holdPair(0, keyA, "ch_1", 0, rejected(400), returned(135))
			p[0].Status, p[0].Outcome, p[0].ChargeID, p[0].Body = 400, history.Rejected, "", ""
			return p
		}()), 0, HoldProbes{Pairs: 1, Undecided: 1, FirstFailed: 1}},
		{"a profile that waits by design", holdInput(api.Profile{Name: "waits", MissingKey: 400, InFlight: 409, InFlightWait: true, Mismatch: 422},
			holdPair(0, keyA, "ch_1", 0, held...)), 0, HoldProbes{Pairs: 1, Held: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Run(c.in)
			if r.Counts[HeldDuplicate] != c.held {
				t.Errorf("held_duplicate %d, want %d: %s", r.Counts[HeldDuplicate], c.held, dump(r.Findings))
			}
			if r.Holds == nil || *r.Holds != c.holds {
				t.Errorf("holds %+v, want %+v", r.Holds, c.holds)
			}
			for _, f := range r.Findings {
				if f.Anomaly == HeldDuplicate {
					assertDetail(t, f)
				}
			}
		})
	}
}
