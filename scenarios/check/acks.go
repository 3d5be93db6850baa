package check

import (
	"fmt"

	"github.com/idemchaos/idemchaos/sim/history"
)

// lostAck checks that an acked attempt names exactly one ledger row with its
// account and amount; a replay carrying the key's reference fingerprint is
// checked against the reference attempt's account and amount instead. ref is
// nil for attempts sent without a key; chs are the key's charges.
func (c *checker) lostAck(key string, a, ref *history.Attempt, chs []*history.Charge) {
	if a.Outcome != history.Acked {
		return
	}
	if c.noChargeIDs {
		c.lostAckByKey(key, a, ref, chs)
		return
	}
	if a.ChargeID == "" {
		c.addLostAck(key, a, nil, fmt.Sprintf("%s was acked with %d for %s but the 2xx carried no charge id",
			who(key, a), a.Status, c.payload(a)))
		return
	}
	row := c.row(a.ChargeID, chs)
	switch {
	case row.n == 0:
		c.addLostAck(key, a, nil, fmt.Sprintf("%s was acked with %d for %s naming charge %s, which the ledger does not hold",
			who(key, a), a.Status, c.payload(a), a.ChargeID))
	case row.n > 1:
		c.addLostAck(key, a, nil, fmt.Sprintf("%s was acked naming charge %s, which the ledger holds %d times",
			who(key, a), a.ChargeID, row.n))
	case ref != nil && a != ref && a.Fingerprint == ref.Fingerprint:
		if row.c.Amount != ref.Amount || row.c.Account != ref.Account {
			c.addLostAck(key, a, ref, fmt.Sprintf("%s replayed charge %s, a ledger row of %s, but the key's original request (attempt %s) asked %s",
				who(key, a), a.ChargeID, c.sum(row.c.Amount, row.c.Account), ref.ID, c.payload(ref)))
		}
	default:
		if row.c.Amount != a.Amount || row.c.Account != a.Account {
			c.addLostAck(key, a, nil, fmt.Sprintf("%s was acked for %s but ledger charge %s is %s",
				who(key, a), c.payload(a), a.ChargeID, c.ledgerSum(row.c, a.Account)))
		}
	}
}

// lostAckByKey checks an ack against a ledger whose rows carry no charge id
// (a user's service): the key must hold a charge with the account and amount
// asked (the original request's, for a replay). Keyless acks cannot be
// attributed and are not checked.
func (c *checker) lostAckByKey(key string, a, ref *history.Attempt, chs []*history.Charge) {
	if key == "" {
		return
	}
	want := a
	if ref != nil && a != ref && a.Fingerprint == ref.Fingerprint {
		want = ref
	}
	for _, ch := range chs {
		if ch.Account == want.Account && ch.Amount == want.Amount {
			return
		}
	}
	if len(chs) == 0 {
		c.addLostAck(key, a, nil, fmt.Sprintf("%s was acked with %d for %s, but the ledger holds no charge under its key",
			who(key, a), a.Status, c.payload(a)))
		return
	}
	c.addLostAck(key, a, nil, fmt.Sprintf("%s was acked for %s, but no ledger charge under its key has that account and amount (first: %s)",
		who(key, a), c.payload(want), c.ledgerSum(chs[0], want.Account)))
}

// addLostAck records a lost_ack finding for a; ref, if not nil, is the
// key's original request it was compared with.
func (c *checker) addLostAck(key string, a, ref *history.Attempt, detail string) {
	f := Finding{Anomaly: LostAck, Key: key, Account: a.Account, Money: a.Amount,
		Attempts: []string{a.ID}, Charges: appendUnique(nil, a.ChargeID), Detail: detail}
	if ref != nil {
		f.Attempts = append(f.Attempts, ref.ID)
	}
	c.add(rankLostAck, 1, f)
}

// replayMismatch checks that a 2xx carrying the key's reference fingerprint
// repeats the status, charge id and body of the key's first such 2xx
// (first; nil when a is that first one or is not such a 2xx), the body as
// the target's ReplayCompare says.
func (c *checker) replayMismatch(key string, a, first *history.Attempt) {
	if first == nil {
		return
	}
	sameCharge, sameStatus, sameBody := a.ChargeID == first.ChargeID, a.Status == first.Status, a.Body == first.Body
	why := ""
	if !sameBody && c.replay.spec.JSON {
		sameBody, why = c.replay.sameBody(a.Body, first.Body, &c.firstDoc)
	}
	if sameCharge && sameStatus && sameBody {
		if a.Body != first.Body && c.replay.spec.Drift {
			c.drift(key, a, first)
		}
		return
	}
	f := Finding{Anomaly: ReplayMismatch, Key: key, Account: a.Account, Attempts: []string{a.ID, first.ID}}
	f.Charges = appendUnique(appendUnique(nil, a.ChargeID), first.ChargeID)
	lead := who(key, a) + replayNote(a)
	got, firstGot := chargeLabel(a.ChargeID), chargeLabel(first.ChargeID)
	if !sameStatus {
		got, firstGot = fmt.Sprintf("%d with %s", a.Status, got), fmt.Sprintf("%d with %s", first.Status, firstGot)
	}
	switch {
	case (!sameCharge || !sameStatus) && !sameBody:
		f.Detail = fmt.Sprintf("%s got %s and another body, where the key's first 2xx (attempt %s) got %s",
			lead, got, first.ID, firstGot)
	case !sameCharge || !sameStatus:
		f.Detail = fmt.Sprintf("%s got %s, where the key's first 2xx (attempt %s) got %s",
			lead, got, first.ID, firstGot)
	default: // the body alone differs: say how
		if why == "" {
			_, why = c.replay.sameBody(a.Body, first.Body, &c.firstDoc)
		}
		f.Detail = fmt.Sprintf("%s got %s with another body than the key's first 2xx (attempt %s): %s",
			lead, got, first.ID, why)
	}
	c.add(rankReplayMismatch, 1, f)
}

// drift records, once per key, a deviation: a replay that repeats the
// first answer's JSON in other bytes.
func (c *checker) drift(key string, a, first *history.Attempt) {
	if c.drifted == nil {
		c.drifted = map[string]bool{}
	}
	if c.drifted[key] {
		return
	}
	c.drifted[key] = true
	f := Finding{Anomaly: ReplayMismatch, Key: key, Account: a.Account, Attempts: []string{a.ID, first.ID}}
	f.Charges = appendUnique(nil, a.ChargeID)
	f.Detail = fmt.Sprintf("%s%s got the same JSON as the key's first 2xx (attempt %s) in other bytes, %s: the service renders its stored "+
		"answer anew (a JSONB column does); byte for byte (--replay-compare bytes) this is a replay_mismatch",
		who(key, a), replayNote(a), first.ID, firstDifference(a.Body, first.Body))
	c.deviations = append(c.deviations, f)
}

// mismatchExecuted checks that an attempt whose fingerprint differs from the
// key's reference was neither acked nor charged.
func (c *checker) mismatchExecuted(key string, a, ref *history.Attempt) {
	charged := c.chargesOf(a.ID)
	acked := a.Outcome == history.Acked
	if !acked && len(charged) == 0 {
		return
	}
	f := Finding{Anomaly: MismatchExecuted, Key: key, Account: a.Account, Attempts: []string{a.ID, ref.ID}}
	ids := make([]string, 0, len(charged))
	for _, ch := range charged {
		f.Money += ch.Amount
		ids = append(ids, ch.ID)
		f.Charges = appendUnique(f.Charges, ch.ID)
	}
	var what string
	switch {
	case acked && len(charged) == 1 && charged[0].ID == a.ChargeID:
		what = fmt.Sprintf("was acked with %d and charged (%s, %s moved)", a.Status, chargeLabel(a.ChargeID), c.money(f.Money))
	case acked && len(charged) > 0:
		what = fmt.Sprintf("was acked with %d (%s) and charged %s; %s moved",
			a.Status, chargeLabel(a.ChargeID), list(ids), c.money(f.Money))
	case acked:
		what = fmt.Sprintf("was acked with %d (%s)", a.Status, chargeLabel(a.ChargeID))
	default:
		what = fmt.Sprintf("was charged %s though not acked; %s moved", list(ids), c.money(f.Money))
	}
	if acked {
		f.Charges = appendUnique(f.Charges, a.ChargeID)
	}
	f.Detail = fmt.Sprintf("%s reused the key with another payload (%s) and %s",
		who(key, a), c.payloadVersus(a, ref), what)
	c.add(rankMismatchExecuted, 1, f)
}
