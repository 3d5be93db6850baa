package engine

import (
	"sort"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/server"
)

// Merge attaches each server log entry to the attempt the client recorded
// under the same id. An entry the client cannot account for (an id seen twice,
// or never sent) is a hidden attempt: it is added to the history, marked, and
// counted, so no re-send escapes the checker.
func Merge(attempts []history.Attempt, entries []server.Entry) ([]history.Attempt, int) {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Start < entries[j].Start })
	index := make(map[string]int, len(attempts))
	for i, a := range attempts {
		index[a.ID] = i
	}
	hidden := 0
	for _, e := range entries {
		view := &history.ServerView{Replica: e.Replica, Start: e.Start, End: e.End, Status: e.Status,
			ChargeID: e.ChargeID, Replayed: e.Replayed, ClaimStart: e.ClaimStart, ClaimEnd: e.ClaimEnd, ClaimWaits: e.ClaimWaits, Handled: e.Handled}
		i, known := index[e.AttemptID]
		if known && attempts[i].Server == nil {
			attempts[i].Server = view
			continue
		}
		hidden++
		attempts = append(attempts, hiddenAttempt(e, view, attempts, i, known))
	}
	return attempts, hidden
}

// hiddenAttempt builds the history record of an attempt only the server saw.
func hiddenAttempt(e server.Entry, view *history.ServerView, attempts []history.Attempt, i int, known bool) history.Attempt {
	a := history.Attempt{ID: e.AttemptID + "#hidden", Key: e.Key, Replica: e.Replica, Call: e.Start, Return: e.End}
	if known {
		src := attempts[i]
		a.Op, a.Try, a.Account, a.Amount, a.Fingerprint = src.Op, src.Try, src.Account, src.Amount, src.Fingerprint
		a.ReplayProbe, a.HoldProbe = src.ReplayProbe, src.HoldProbe
	}
	a.Outcome, a.Hidden, a.Server = history.Indeterminate, true, view
	return a
}
