package check

import (
	"fmt"

	"github.com/idemchaos/idemchaos/sim/history"
)

// missingKeyStatus checks the answer to a POST without a key: the profile's
// MissingKey status, or, when the profile allows such requests, anything but
// a 5xx.
func (c *checker) missingKeyStatus(a *history.Attempt) {
	if a.Status == 0 {
		return
	}
	p := c.profile
	var detail string
	switch {
	case p.MissingKey != 0 && a.Status != p.MissingKey:
		detail = fmt.Sprintf("%s got %d; %s answers %d to a request without a key",
			who("", a), a.Status, c.profileLabel(), p.MissingKey)
	case p.MissingKey == 0 && is5xx(a.Status):
		detail = fmt.Sprintf("%s got %d; %s allows requests without a key, so it must not fail them",
			who("", a), a.Status, c.profileLabel())
	default:
		return
	}
	c.add(rankStatusContract, 1, Finding{
		Anomaly: StatusContract, Account: a.Account, Attempts: []string{a.ID}, Detail: detail,
	})
}

// keyedStatus checks the status of an attempt that carried a key, reporting
// at most one violation per attempt: (b) a payload mismatch answered with a
// non-2xx other than the profile's Mismatch or InFlight status; (c) a
// concurrent duplicate answered 5xx with no fault placed on it; (d) a replay
// without the profile's replay header.
func (c *checker) keyedStatus(key string, a, ref *history.Attempt, s *keyScratch, pos int, atts []*history.Attempt) {
	p := c.profile
	switch {
	case a.Fingerprint != ref.Fingerprint && a.Status != 0 && !is2xx(a.Status) && p.Mismatch != 0 &&
		a.Status != p.Mismatch && a.Status != p.InFlight:
		c.addStatus(key, a, ref, "", fmt.Sprintf("%s reused the key with another payload (%s) and got %d; %s answers %d (or %d while the first is in flight)",
			who(key, a), payloadVersus(a, ref), a.Status, c.profileLabel(), p.Mismatch, p.InFlight))
	case s.partner[pos] >= 0 && is5xx(a.Status) && a.Fault == "":
		other := atts[s.partner[pos]]
		c.addStatus(key, a, other, "", fmt.Sprintf("%s was a concurrent duplicate of attempt %s and got %d with no fault placed on it; %s answers %d at once",
			who(key, a), other.ID, a.Status, c.profileLabel(), p.InFlight))
	case p.ReplayHeader != "" && s.first[pos] != nil && !a.Replayed:
		first := s.first[pos]
		c.addStatus(key, a, first, a.ChargeID, fmt.Sprintf("%s replayed the 2xx (%s) first returned to attempt %s without the %s header that %s requires",
			who(key, a), chargeLabel(a.ChargeID), first.ID, p.ReplayHeader, c.profileLabel()))
	}
}

// addStatus records a status_contract finding for a, with other as the
// attempt it was judged against and charge, if any, as evidence.
func (c *checker) addStatus(key string, a, other *history.Attempt, charge, detail string) {
	c.add(rankStatusContract, 1, Finding{
		Anomaly: StatusContract, Key: key, Account: a.Account, Attempts: []string{a.ID, other.ID},
		Charges: appendUnique(nil, charge), Detail: detail,
	})
}
