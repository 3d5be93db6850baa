package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestHoldProbesThatShowAFastService: probes that decided nothing because
// every first request was answered within HoldMinCharge show a service too
// fast to probe (a note, no assumption failed); probes whose first
// requests were slower, or that got no answer, leave holds unproved.
func TestHoldProbesThatShowAFastService(t *testing.T) {
	for _, c := range []struct {
		name     string
		h        check.HoldProbes
		unproved bool
		note     bool
	}{
		{"fast", check.HoldProbes{Pairs: 6, Undecided: 6, Early: 6, FirstSlowest: 12 * time.Millisecond}, false, true},
		{"slow but undecided", check.HoldProbes{Pairs: 6, Undecided: 6, Early: 6, FirstSlowest: 200 * time.Millisecond}, true, false},
		{"no first answered", check.HoldProbes{Pairs: 6, Undecided: 6, Unanswered: 6}, true, false},
		{"fast, but some unanswered", check.HoldProbes{Pairs: 6, Undecided: 6, Early: 4, Unanswered: 2, FirstSlowest: 12 * time.Millisecond}, true, false},
		{"failed: decided", check.HoldProbes{Pairs: 6, Failed: 6}, false, false},
		{"decided", check.HoldProbes{Pairs: 6, Refused: 5, Undecided: 1, FirstSlowest: 12 * time.Millisecond}, false, false},
	} {
		why, note := holdsAssumption(&c.h), holdsNote(&c.h)
		if (why != "") != c.unproved || (note != "") != c.note {
			t.Errorf("%s: assumption %q, note %q", c.name, why, note)
		}
		if c.note && !strings.Contains(note, "12ms") {
			t.Errorf("%s: the note does not say how fast: %q", c.name, note)
		}
	}
}

// TestHoldsReasonFromThePairs: the reason a run's hold probes proved
// nothing is told from the pairs the checker judged, never assumed: each
// planted history (first requests answered before their duplicates left,
// requests with no answer, a first request refused) gets a sentence that
// counts what happened and claims nothing else; duplicates answered 503
// while their first was in flight decide the probes (a status_contract),
// and no reason is given.
func TestHoldsReasonFromThePairs(t *testing.T) {
	const (
		early      = "had the first request answered before its duplicate was sent"
		unanswered = "had a request that got no answer"
		refused    = "had the first request refused"
	)
	for _, c := range []struct {
		name         string
		dups         []func(first, dup *history.Attempt)
		want, absent []string
	}{
		{"answered before sent", []func(first, dup *history.Attempt){sentLate, sentLate},
			[]string{"of 2 pairs, 2 " + early}, []string{unanswered, refused}},
		{"no answers", []func(first, dup *history.Attempt){noAnswer, noAnswer, sentLate},
			[]string{"of 3 pairs, 1 " + early, "2 " + unanswered}, []string{refused}},
		{"a first refused", []func(first, dup *history.Attempt){firstRefused},
			[]string{"of 1 pairs, 1 " + refused}, []string{early, unanswered}},
		{"503 to duplicates in flight", []func(first, dup *history.Attempt){got503, got503}, nil, []string{early, unanswered, refused}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var atts []history.Attempt
			var charges []history.Charge
			for i, plant := range c.dups {
				first, dup := holdPair(i)
				plant(&first, &dup)
				atts = append(atts, first, dup)
				if first.ChargeID != "" {
					charges = append(charges, history.Charge{ID: first.ChargeID, Account: "acct-1", Amount: 100, Key: first.Key,
						AttemptID: first.ID, Seq: int64(i + 1)})
				}
			}
			rep := check.Run(check.Input{History: history.History{Attempts: atts}, Ledger: history.Ledger{Charges: charges}, Profile: api.IETF})
			why := holdsAssumption(rep.Holds)
			if c.want == nil {
				if why != "" || rep.Counts[check.StatusContract] == 0 {
					t.Fatalf("reason %q, status_contract %d, holds %+v; want decided by status_contract", why, rep.Counts[check.StatusContract], rep.Holds)
				}
				return
			}
			for _, w := range c.want {
				if !strings.Contains(why, w) {
					t.Errorf("reason %q lacks %q (holds %+v)", why, w, rep.Holds)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(why, a) {
					t.Errorf("reason %q says %q, which the history contradicts (holds %+v)", why, a, rep.Holds)
				}
			}
		})
	}
}

// holdPair is hold-probe pair i of a service with no server log: a first
// request sent at i seconds and answered 201 200 ms later, its duplicate
// sent 60 ms in and refused 409 at once.
func holdPair(i int) (first, dup history.Attempt) {
	at := time.Duration(i) * time.Second
	key := fmt.Sprintf("key-%d", i)
	fp := api.ChargeRequest{Account: "acct-1", Amount: 100, Currency: "EUR"}.Fingerprint()
	first = history.Attempt{Op: 2 * i, Try: 1, ID: fmt.Sprintf("o%d-t1", 2*i), Key: key, Account: "acct-1", Amount: 100, Fingerprint: fp,
		Call: at, Return: at + 200*time.Millisecond, Status: 201, Outcome: history.Acked, ChargeID: fmt.Sprintf("ch_%d", i), HoldProbe: true}
	dup = first
	dup.Op, dup.ID, dup.Call, dup.Return = 2*i+1, fmt.Sprintf("o%d-t1", 2*i+1), at+60*time.Millisecond, at+62*time.Millisecond
	dup.Status, dup.Outcome, dup.ChargeID = 409, history.Rejected, ""
	return first, dup
}

func sentLate(first, dup *history.Attempt) {
	first.Return = first.Call + 50*time.Millisecond // answered before its duplicate left at 60 ms
}

func noAnswer(first, dup *history.Attempt) {
	dup.Status, dup.Outcome, dup.Err, dup.Return = 0, history.Indeterminate, "timeout", dup.Call+2*time.Second
}

func firstRefused(first, dup *history.Attempt) {
	first.Status, first.Outcome, first.ChargeID = 400, history.Rejected, ""
}

func got503(first, dup *history.Attempt) {
	dup.Status, dup.Outcome, dup.Return = 503, history.Indeterminate, first.Return-10*time.Millisecond
}
