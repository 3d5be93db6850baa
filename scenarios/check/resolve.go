package check

import "github.com/idemchaos/idemchaos/sim/history"

// Resolve returns a copy of h where each Indeterminate attempt gets Applied
// set: true iff the ledger holds a charge whose AttemptID equals the attempt's
// ID (unless the ledger names no attempts: then it stays unknown). Other attempts keep their Applied as it was, and every other field of
// h (seed, quiescence, claim timeout) is kept. h is not modified, and the
// copy shares no pointers with it.
func Resolve(h history.History, l history.Ledger) history.History {
	charged := make(map[string]struct{}, len(l.Charges))
	for _, ch := range l.Charges {
		if ch.AttemptID != "" {
			charged[ch.AttemptID] = struct{}{}
		}
	}
	out := h // every scalar field (seed, quiescence, claim timeout) as it was
	if h.Attempts == nil {
		return out
	}
	out.Attempts = make([]history.Attempt, len(h.Attempts))
	for i, a := range h.Attempts {
		if a.Server != nil {
			v := *a.Server
			a.Server = &v
		}
		if a.Outcome == history.Indeterminate && !l.NoAttemptIDs {
			_, applied := charged[a.ID]
			a.Applied = &applied
		} else if a.Applied != nil {
			v := *a.Applied
			a.Applied = &v
		}
		out.Attempts[i] = a
	}
	return out
}
