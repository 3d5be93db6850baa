package check

import (
	"fmt"
	"sort"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// splitExpired applies the target's documented retention: a charge made by a
// request that reached the server more than KeyTTL after its key's previous
// charge ended found the key gone and is, by contract, a new request (more
// than nine tenths of KeyTTL: the record was written a little before the
// charging request ended, by as much as a loaded machine delays the
// answer, so a request that close to the TTL may rightly find it gone). That
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
	renamed, latest, expired := epochs(atts, charged, ttl, in.History.End)
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

// epoch is one key's current retention period while attempts are walked in
// server order.
type epoch struct {
	n       int
	name    string
	lastEnd time.Duration // server end of the period's last charging attempt; -1: none
}

// epochs renames, in place, the attempts of each key from the first charging
// attempt that starts a new retention period. It returns the new name by
// attempt id (renamed attempts only), each renamed key's latest name, and the
// names of the periods that ended, before end (when the stores were read) at
// the latest.
func epochs(atts []history.Attempt, charged map[string]bool, ttl, end time.Duration) (renamed, latest map[string]string, expired map[string]bool) {
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
			e = &epoch{n: 1, name: a.Key, lastEnd: -1}
			keys[a.Key] = e
		}
		if charged[a.ID] && e.lastEnd >= 0 && start(*a)-e.lastEnd > ttl*9/10 {
			expired[e.name] = true
			e.n, e.lastEnd = e.n+1, -1
			e.name = fmt.Sprintf("%s#%d", a.Key, e.n)
			latest[a.Key] = e.name
		}
		if charged[a.ID] && a.Server != nil {
			e.lastEnd = max(e.lastEnd, a.Server.End)
		}
		if e.n > 1 {
			renamed[a.ID] = e.name
			a.Key = e.name
		}
	}
	for _, e := range keys {
		if e.lastEnd >= 0 && end-e.lastEnd > ttl*9/10 { // the record was written a little before lastEnd
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
