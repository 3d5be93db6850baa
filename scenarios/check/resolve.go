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
	var views []history.ServerView // the copies, allocated together
	var flags []bool
	for i, a := range h.Attempts {
		if a.Server != nil {
			views = slab(views, len(h.Attempts)-i)
			views = append(views, *a.Server)
			a.Server = &views[len(views)-1]
		}
		applied, set := false, false
		if a.Outcome == history.Indeterminate && !l.NoAttemptIDs {
			_, applied = charged[a.ID]
			set = true
		} else if a.Applied != nil {
			applied, set = *a.Applied, true
		}
		if set {
			flags = slab(flags, len(h.Attempts)-i)
			flags = append(flags, applied)
			a.Applied = &flags[len(flags)-1]
		}
		out.Attempts[i] = a
	}
	return out
}

// slab returns s with room for one more element: a new slab when s is
// full (s itself stays as it is, pointed into), of at most 4096 and at
// most left elements.
func slab[T any](s []T, left int) []T {
	if len(s) < cap(s) {
		return s
	}
	return make([]T, 0, min(left, 4096))
}
