package check

import (
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// A user's ledger whose rows carry no charge id: an ack is matched to its
// key's charges by account and amount (the original request's for a
// replay); the charge id the answer named does not matter.
func TestLostAckWithoutChargeIDs(t *testing.T) {
	noIDs := func(chs ...history.Charge) history.Ledger {
		return history.Ledger{Charges: chs, NoChargeIDs: true, NoAttemptIDs: true}
	}
	row := func(key string, amount int64) history.Charge {
		return history.Charge{ID: "row-1", Account: "acct_1", Amount: amount, Key: key, Seq: 1}
	}
	cases := []struct {
		name string
		in   Input
		lost int
	}{
		{"ack matched by key, account, amount", input(api.IETF, noIDs(row("k", 500)),
			att(0, 1, "k", 500, 0, acked(201, "ch_9", "b"))), 0},
		{"replay of the same request matched too", input(api.IETF, noIDs(row("k", 500)),
			att(0, 1, "k", 500, 0, acked(201, "ch_9", "b")), att(1, 1, "k", 500, 100, acked(201, "ch_9", "b"), replayed())), 0},
		{"ack with no charge under its key", input(api.IETF, noIDs(),
			att(0, 1, "k", 500, 0, acked(201, "ch_9", "b"))), 1},
		{"ack for another amount than the key's charge", input(api.IETF, noIDs(row("k", 700)),
			att(0, 1, "k", 500, 0, acked(201, "ch_9", "b"))), 1},
		{"keyless ack cannot be attributed", input(api.IETF, noIDs(),
			att(0, 1, "", 500, 0, acked(201, "ch_9", "b"))), 0},
	}
	for _, c := range cases {
		rep := Run(c.in)
		if got := rep.Counts[LostAck]; got != c.lost {
			t.Errorf("%s: lost_ack %d, want %d (%v)", c.name, got, c.lost, rep.Findings)
		}
	}
	// the same ack against a ledger with ids would be lost: the id differs
	withIDs := Run(input(api.IETF, history.Ledger{Charges: []history.Charge{row("k", 500)}},
		att(0, 1, "k", 500, 0, acked(201, "ch_9", "b"))))
	if withIDs.Counts[LostAck] != 1 {
		t.Errorf("with charge ids, an ack naming another id must be lost: %v", withIDs.Counts)
	}
}

func TestResolveLeavesOutcomesUnknownWithoutAttemptIDs(t *testing.T) {
	h := history.History{Attempts: []history.Attempt{att(0, 1, "k", 500, 0, timedOut())}}
	got := Resolve(h, history.Ledger{NoAttemptIDs: true})
	if got.Attempts[0].Applied != nil {
		t.Errorf("applied resolved to %v without attempt ids", *got.Attempts[0].Applied)
	}
	got = Resolve(h, history.Ledger{})
	if got.Attempts[0].Applied == nil || *got.Attempts[0].Applied {
		t.Errorf("with attempt ids and no charge, the timeout did not apply")
	}
}

// A keyless ack against a ledger that could not give back the charges made
// without a key is not called lost; with them read back it is judged.
func TestKeylessAckWhereKeylessRowsAreUnknown(t *testing.T) {
	ack := att(0, 1, "", 500, 0, acked(201, "ch_9", "b"))
	unknown := history.Ledger{NoKeyless: true}
	if got := Run(input(api.Stripe, unknown, ack)).Counts[LostAck]; got != 0 {
		t.Fatalf("lost_ack %d where the keyless rows could not be read", got)
	}
	if got := Run(input(api.Stripe, history.Ledger{}, ack)).Counts[LostAck]; got != 1 {
		t.Fatalf("lost_ack %d where the keyless rows were read and none made ch_9", got)
	}
	row := history.Charge{ID: "ch_9", Account: "acct_1", Amount: 500, AttemptID: ack.ID, Seq: 1}
	if got := Run(input(api.Stripe, history.Ledger{Charges: []history.Charge{row}}, ack)).Counts[LostAck]; got != 0 {
		t.Fatalf("lost_ack %d though the keyless charge was read back", got)
	}
}
