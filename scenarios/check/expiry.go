package check

import (
	"fmt"
	"sort"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// splitExpired applies the target's documented retention: a charge made by a
// request that may have looked for its key after the key's record expired
// is, by contract, a new request (epoch.over says when it may have). That
// request and everything after it are checked under a new key name ("key#2",
// "key#3", ...), so a charge after expiry is not a double charge. It returns
// the renamed input (the argument is not modified) and the key names whose
// retention ended, whose Redis records have legitimately expired.
func splitExpired(in Input) (Input, map[string]bool) {
	ttl := in.History.KeyTTL
	if ttl <= 0 {
		return in, nil
	}
	charged := map[string]bool{}
	for _, ch := range in.Ledger.Charges {
		charged[ch.AttemptID] = true
	}
	atts := append([]history.Attempt(nil), in.History.Attempts...)
	renamed, latest, expired := epochs(atts, retention{charged: charged, ttl: ttl, checked: in.Checked}, in.History.End)
	in.History.Attempts = atts
	in.Ledger.Charges = append([]history.Charge(nil), in.Ledger.Charges...)
	for i, ch := range in.Ledger.Charges {
		if k, ok := renamed[ch.AttemptID]; ok {
			in.Ledger.Charges[i].Key = k
		}
	}
	in.Ledger.Redis = append([]history.RedisRecord(nil), in.Ledger.Redis...)
	for i, r := range in.Ledger.Redis {
		if k, ok := latest[r.Key]; ok {
			in.Ledger.Redis[i].Key = k
		}
	}
	return in, expired
}

// retention is what epochs needs to know: which attempts charged, the
// TTL, and when the trace saw each attempt find its key free (Input.Checked).
type retention struct {
	charged map[string]bool
	ttl     time.Duration
	checked map[string]time.Duration
}

// epoch is one key's current retention period while attempts are walked in
// server order.
type epoch struct {
	n    int
	name string
	// lastStart and lastEnd are the server's start and end of the
	// period's last charging attempt; -1: none
	lastStart, lastEnd time.Duration
}

// charge adds charging attempt a to the period.
func (e *epoch) charge(a history.Attempt) {
	if a.Server != nil {
		e.lastStart, e.lastEnd = max(e.lastStart, a.Server.Start), max(e.lastEnd, a.Server.End)
	}
}

// over says the period may have ended before charging attempt a looked
// for its key. A record's retention starts at the earliest when its
// charging attempt reached the server (a claim's TTL), at the latest when
// its response was stored, a little before the answer ended. So: a
// started more than nine tenths of the TTL after the last charge ended,
// or, with the trace, a found its key free more than the TTL after the
// last charge reached the server (on a loaded machine the answer may end
// long after the store).
func (e *epoch) over(a history.Attempt, r retention) bool {
	if e.lastEnd < 0 {
		return false
	}
	if at, ok := r.checked[a.ID]; ok && at-e.lastStart > r.ttl {
		return true
	}
	return start(a)-e.lastEnd > r.ttl*9/10
}

// gone says the period's record may have expired by end, on the same two
// bounds.
func (e *epoch) gone(end, ttl time.Duration) bool {
	return e.lastEnd >= 0 && (end-e.lastStart > ttl || end-e.lastEnd > ttl*9/10)
}

// epochs renames, in place, the attempts of each key from the first charging
// attempt that starts a new retention period. It returns the new name by
// attempt id (renamed attempts only), each renamed key's latest name, and the
// names of the periods that ended, before end (when the stores were read) at
// the latest.
func epochs(atts []history.Attempt, r retention, end time.Duration) (renamed, latest map[string]string, expired map[string]bool) {
	order := make([]int, len(atts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return start(atts[order[x]]) < start(atts[order[y]]) })
	keys := map[string]*epoch{}
	renamed, latest, expired = map[string]string{}, map[string]string{}, map[string]bool{}
	for _, i := range order {
		a := &atts[i]
		if a.Key == "" {
			continue
		}
		e := keys[a.Key]
		if e == nil {
			e = &epoch{n: 1, name: a.Key, lastStart: -1, lastEnd: -1}
			keys[a.Key] = e
		}
		if r.charged[a.ID] && e.over(*a, r) {
			expired[e.name] = true
			e = &epoch{n: e.n + 1, name: fmt.Sprintf("%s#%d", a.Key, e.n+1), lastStart: -1, lastEnd: -1}
			keys[a.Key] = e
			latest[a.Key] = e.name
		}
		if r.charged[a.ID] {
			e.charge(*a)
		}
		if e.n > 1 {
			renamed[a.ID] = e.name
			a.Key = e.name
		}
	}
	for _, e := range keys {
		if e.gone(end, r.ttl) {
			expired[e.name] = true
		}
	}
	return renamed, latest, expired
}

// start is when the server began an attempt, or when the client sent it.
func start(a history.Attempt) time.Duration {
	if a.Server != nil {
		return a.Server.Start
	}
	return a.Call
}
