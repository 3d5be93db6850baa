package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemchaos/idemchaos/sim/history"
)

// storeDesync compares a key's Redis records with its ledger charges (chs,
// by account then seq) for a two-store target, and reports the key once if
// (a) a completed Redis record names a charge the ledger does not hold, holds
// under another key, or that is not the key's first charge (Redis answered
// retries from a second execution), or (b) the ledger holds a charge for the
// key but no completed Redis record names its first one (no record at all,
// only an in-flight claim, or completed records naming no charge or another
// one). The money at stake is, for (b), the amount of the key's
// earliest charge (by seq), which a retry charges again; nothing for (a).
func (c *checker) storeDesync(key string, chs []*history.Charge, reds []*history.RedisRecord) {
	var claim, noCharge *history.RedisRecord
	var done, matched bool
	var wrong []string // (a): charge ids named by completed records, unmatched
	var parts []string
	var first *history.Charge
	if len(chs) > 0 {
		first = slices.MinFunc(chs, bySeq)
	}
	for _, r := range reds {
		switch {
		case !r.Done:
			if claim == nil {
				claim = r
			}
			continue
		case r.ChargeID == "":
			done = true
			if noCharge == nil {
				noCharge = r
			}
			continue
		}
		done = true
		var what string
		switch row := c.keyRow(key, r.ChargeID, chs); {
		case row.n == 0:
			what = "which the ledger does not hold"
		case row.c.Key != key:
			what = "which the ledger holds under " + keyLabel(row.c.Key)
		case first != nil && r.ChargeID != first.ID:
			what = "a later charge than " + first.ID + ", the one Postgres committed first for the key"
		default:
			matched = true
			continue
		}
		if slices.Contains(wrong, r.ChargeID) {
			continue
		}
		wrong = append(wrong, r.ChargeID)
		parts = append(parts, fmt.Sprintf("Redis's completed record (status %d) names charge %s, %s",
			r.Status, r.ChargeID, what))
	}
	unmatched := len(chs) > 0 && !matched
	if !unmatched && len(wrong) == 0 {
		return
	}
	f := Finding{Anomaly: StoreDesync, Key: key}
	if unmatched {
		f.Account, f.Money, f.Charges = first.Account, first.Amount, []string{first.ID}
		by := "an unrecorded attempt"
		if first.AttemptID != "" {
			by = "attempt " + first.AttemptID
			f.Attempts = []string{first.AttemptID}
		}
		var redis string
		switch {
		case done && len(wrong) > 0:
			redis = "no completed Redis record names it"
		case done:
			redis = fmt.Sprintf("Redis's completed record (status %d) names no charge: a retry is answered %d though the money moved",
				noCharge.Status, noCharge.Status)
		case claim != nil:
			redis = "Redis holds no completed record, only an in-flight claim" + ttlLabel(claim.TTL) +
				": once the claim expires a retry charges again"
		default:
			redis = "Redis holds no record of the key: a retry charges again"
		}
		parts = append([]string{fmt.Sprintf("Postgres committed %s (%s, by %s) but %s",
			first.ID, c.sum(first.Amount, first.Account), by, redis)}, parts...)
	}
	f.Charges = append(f.Charges, wrong...)
	f.Detail = keyLabel(key) + ": " + strings.Join(parts, "; ")
	c.add(rankStoreDesync, 1, f)
}

// keyRow returns the ledger row called id, preferring one held under key
// (chs are key's charges).
func (c *checker) keyRow(key, id string, chs []*history.Charge) chargeRow {
	row := c.row(id, chs)
	if row.n > 1 && row.c.Key != key {
		for _, ch := range chs {
			if ch.ID == id {
				row.c = ch
				break
			}
		}
	}
	return row
}
