package check

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// checker holds the indexes built once per Run and the findings gathered.
type checker struct {
	profile  api.Profile
	currency string // named after every sum of money in a detail
	// probes says the run has a probe phase: attempts called at or after
	// probeFrom (Quiesced + ClaimTimeout) are probes.
	probes              bool
	quiesced, claimTime time.Duration
	probeFrom           time.Duration
	chargeTime          time.Duration
	twoStores           bool
	// blind: no attempt has a server view (a user's service logs
	// nothing), so overlaps are judged on the client's timings (flight).
	blind bool
	// harnessHeld is what the harness held each attempt (Input.Held);
	// faulted the spans with a store link faulted (Input.Faulted).
	harnessHeld map[string]time.Duration
	faulted     []Window
	// replay is how a 2xx must repeat the key's first one; firstDoc
	// caches the first one's decoded body.
	replay   compiledCompare
	firstDoc firstDoc
	// noChargeIDs: the ledger's rows carry no charge id; acks are matched by
	// key, account and amount.
	noChargeIDs bool
	// noKeyless: the ledger could not give back the charges made without
	// a key; keyless acks are not checked against it.
	noKeyless bool
	// keyTTL is the target's key retention (0: forever): a request that
	// starts later than that after a key's refusal is a new request.
	keyTTL time.Duration
	// expired names the keys whose retention ended before the run did: their
	// Redis records are legitimately gone.
	expired map[string]bool

	// keys holds every distinct key (of attempts and charges), sorted.
	keys []string
	// visit holds the ranks in keys of the keys in the order the input
	// first names them: checking keys in that order reads the attempts
	// roughly in the order they lie in memory.
	visit []int32
	// atts holds every attempt, grouped by key in the order of keys, each
	// group in canonical order (compareAttempts); key i's attempts are
	// atts[attAt[i]:attAt[i+1]].
	atts  []*history.Attempt
	attAt []int32
	// chs holds every charge grouped likewise, each group sorted by account
	// then seq, so that each (account, key) group is contiguous; key i's
	// charges are chs[chAt[i]:chAt[i+1]].
	chs  []*history.Charge
	chAt []int32
	// reds holds the Redis records grouped likewise, each group in
	// canonical order (compareRedis); key i's records are reds[redAt[i]:redAt[i+1]].
	reds  []*history.RedisRecord
	redAt []int32
	// byAttempt indexes the ledger by AttemptID: the first charge naming an
	// attempt, and next[i] the following one after ledger[i] (-1: none).
	// Built lazily, on the first payload mismatch.
	byAttempt map[string]int32
	next      []int32
	ledger    []history.Charge
	// rows indexes the ledger by charge id; dups holds the ids held by
	// more than one row.
	rows map[string]chargeRow
	dups map[string]struct{}
	// byID indexes attempts by id; built lazily, only if a charge names an
	// attempt outside its own key.
	byID     map[string]*history.Attempt
	accounts []history.Account
	// refusals holds the replicas that answered the in-flight status; built
	// lazily, on the first candidate held duplicate.
	refusals map[int]bool

	scratch keyScratch

	counts      []int       // per rank
	findings    [][]Finding // per rank
	overcharged int64
	// deviations are findings the profile documents as its service's
	// behaviour (refusals decided again): reported, never counted.
	deviations []Finding
	drifted    map[string]bool // keys with a byte-drift deviation already
	pairs      []pairing       // the hold-probe pairs, judged together
	holds      *HoldProbes
}

// chargeRow is a ledger row and how many rows carry its id.
type chargeRow struct {
	c *history.Charge
	n int
}

func newChecker(in Input) *checker {
	h := in.History
	c := &checker{profile: in.Profile, currency: in.Currency, ledger: in.Ledger.Charges,
		probes: h.Quiesced > 0, quiesced: h.Quiesced, claimTime: h.ClaimTimeout,
		probeFrom: h.Quiesced + h.ClaimTimeout, twoStores: in.TwoStores, noChargeIDs: in.Ledger.NoChargeIDs,
		noKeyless: in.Ledger.NoKeyless, replay: compileCompare(in.Replay), chargeTime: in.ChargeTime, keyTTL: h.KeyTTL}
	c.harnessHeld, c.faulted = in.Held, in.Faulted
	c.blind = !slices.ContainsFunc(h.Attempts, func(a history.Attempt) bool { return a.Server != nil })
	c.counts, c.findings = make([]int, len(registry)), make([][]Finding, len(registry))
	c.group(h.Attempts, in.Ledger.Charges, in.Ledger.Redis)

	c.rows = make(map[string]chargeRow, len(c.chs))
	for _, ch := range c.chs { // grouped and sorted, so the first row of a duplicated id is stable
		r, ok := c.rows[ch.ID]
		if !ok {
			r.c = ch
		} else if c.dups == nil {
			c.dups = map[string]struct{}{ch.ID: {}}
		} else {
			c.dups[ch.ID] = struct{}{}
		}
		r.n++
		c.rows[ch.ID] = r
	}

	c.accounts = slices.Clone(in.Ledger.Accounts)
	slices.SortFunc(c.accounts, func(a, b history.Account) int {
		return cmp.Or(strings.Compare(a.ID, b.ID), cmp.Compare(a.Opening, b.Opening), cmp.Compare(a.Balance, b.Balance),
			cmp.Compare(a.Credited, b.Credited))
	})
	return c
}

// group fills keys, atts, attAt, chs, chAt, reds and redAt: it hashes
// attempts, charges and Redis records into one group per key, sorts the
// distinct keys only, places the groups in that order (counting sort), then
// sorts each small group.
func (c *checker) group(atts []history.Attempt, chs []history.Charge, reds []history.RedisRecord) {
	ids := make(map[string]int32, len(chs)+len(atts)/8)
	var keys []string
	idOf := func(k string) int32 {
		id, ok := ids[k]
		if !ok {
			id = int32(len(keys))
			keys = append(keys, k)
			ids[k] = id
		}
		return id
	}
	attG := make([]int32, len(atts))
	for i := range atts {
		attG[i] = idOf(atts[i].Key)
	}
	chG := make([]int32, len(chs))
	for i := range chs {
		chG[i] = idOf(chs[i].Key)
	}
	redG := make([]int32, len(reds))
	for i := range reds {
		redG[i] = idOf(reds[i].Key)
	}

	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
	rank := make([]int32, len(keys))
	c.keys = make([]string, len(keys))
	for r, id := range order {
		rank[id] = int32(r)
		c.keys[r] = keys[id]
	}
	c.visit = rank // ids are in the order the input first names each key

	c.atts, c.attAt = place(atts, attG, rank)
	c.chs, c.chAt = place(chs, chG, rank)
	c.reds, c.redAt = place(reds, redG, rank)
	for _, r := range c.visit { // in memory order, roughly: each group on its own
		slices.SortFunc(c.atts[c.attAt[r]:c.attAt[r+1]], compareAttempts)
		slices.SortFunc(c.chs[c.chAt[r]:c.chAt[r+1]], compareCharges)
		if c.redAt[r+1]-c.redAt[r] > 1 {
			slices.SortFunc(c.reds[c.redAt[r]:c.redAt[r+1]], compareRedis)
		}
	}
}

// place lays pointers to items out by the rank of their group: the items of
// rank r end up in out[at[r]:at[r+1]], in input order.
func place[T any](items []T, group, rank []int32) (out []*T, at []int32) {
	at = make([]int32, len(rank)+1)
	for _, g := range group {
		at[rank[g]+1]++
	}
	for r := 1; r < len(at); r++ {
		at[r] += at[r-1]
	}
	next := slices.Clone(at[:len(rank)])
	out = make([]*T, len(items))
	for i, g := range group {
		r := rank[g]
		out[next[r]] = &items[i]
		next[r]++
	}
	return out, at
}

// row returns the ledger row called id: from the key's own charges (group)
// when they are few and the id is unique, else from the index.
func (c *checker) row(id string, group []*history.Charge) chargeRow {
	if len(group) <= smallGroup {
		if _, dup := c.dups[id]; !dup {
			for _, ch := range group {
				if ch.ID == id {
					return chargeRow{c: ch, n: 1}
				}
			}
		}
	}
	return c.rows[id]
}

// chargesOf returns the ledger charges attributed to attempt id, by seq.
func (c *checker) chargesOf(id string) []*history.Charge {
	if c.byAttempt == nil {
		c.indexByAttempt()
	}
	first, ok := c.byAttempt[id]
	if !ok {
		return nil
	}
	var out []*history.Charge
	for i := first; i >= 0; i = c.next[i] {
		out = append(out, &c.ledger[i])
	}
	slices.SortFunc(out, bySeq)
	return out
}

func (c *checker) indexByAttempt() {
	c.byAttempt = make(map[string]int32, len(c.ledger))
	c.next = make([]int32, len(c.ledger))
	for i := len(c.ledger) - 1; i >= 0; i-- {
		c.next[i] = -1
		id := c.ledger[i].AttemptID
		if id == "" {
			continue
		}
		if j, ok := c.byAttempt[id]; ok {
			c.next[i] = j
		}
		c.byAttempt[id] = int32(i)
	}
}

// attempt returns the attempt called id, preferring one of the key's own
// attempts (group); among attempts sharing an id the first in canonical order.
func (c *checker) attempt(id string, group []*history.Attempt) *history.Attempt {
	for _, a := range group {
		if a.ID == id {
			return a
		}
	}
	if c.byID == nil {
		c.byID = make(map[string]*history.Attempt, len(c.atts))
		for _, a := range c.atts {
			if _, dup := c.byID[a.ID]; !dup {
				c.byID[a.ID] = a
			}
		}
	}
	return c.byID[id]
}

// checkKeys runs the per-key checks, key by key in the order the input
// names them (what one key's checks find does not depend on another's),
// then orders each anomaly's findings and the deviations by key: the
// order checking the keys in sorted order gives, whatever the input's.
func (c *checker) checkKeys() {
	for _, r := range c.visit {
		c.checkKey(c.keys[r], c.atts[c.attAt[r]:c.attAt[r+1]], c.chs[c.chAt[r]:c.chAt[r+1]],
			c.reds[c.redAt[r]:c.redAt[r+1]])
	}
	for rank := range c.findings {
		slices.SortStableFunc(c.findings[rank], byKey)
	}
	slices.SortStableFunc(c.deviations, byKey)
}

// byKey orders findings by key only, so that a stable sort keeps the
// order in which one key's findings were made.
func byKey(a, b Finding) int { return strings.Compare(a.Key, b.Key) }

// compareAttempts is a total order on attempts: key, then call time, then
// every other field, so that shuffled input sorts the same way.
func compareAttempts(a, b *history.Attempt) int {
	if x := strings.Compare(a.Key, b.Key); x != 0 {
		return x
	}
	if x := cmp.Compare(a.Call, b.Call); x != 0 {
		return x
	}
	if x := cmp.Compare(a.Op, b.Op); x != 0 {
		return x
	}
	if x := cmp.Compare(a.Try, b.Try); x != 0 {
		return x
	}
	if x := strings.Compare(a.ID, b.ID); x != 0 {
		return x
	}
	return compareRest(a, b)
}

// compareRest breaks ties between attempts equal in key, call, op, try and id
// (a hidden re-send may share its original's id).
func compareRest(a, b *history.Attempt) int {
	if a.Hidden != b.Hidden {
		if a.Hidden {
			return 1
		}
		return -1
	}
	if x := compareServer(a.Server, b.Server); x != 0 {
		return x
	}
	return cmp.Or(
		cmp.Compare(a.Return, b.Return),
		cmp.Compare(a.Status, b.Status),
		strings.Compare(string(a.Outcome), string(b.Outcome)),
		strings.Compare(a.ChargeID, b.ChargeID),
		strings.Compare(a.Fingerprint, b.Fingerprint),
		strings.Compare(a.Account, b.Account),
		cmp.Compare(a.Amount, b.Amount),
		cmp.Compare(a.Replica, b.Replica),
		strings.Compare(a.Fault, b.Fault),
		strings.Compare(a.Err, b.Err),
		strings.Compare(a.Body, b.Body),
		compareBool(a.Replayed, b.Replayed),
		compareBool(a.Reused, b.Reused),
		compareBool(a.ReplayProbe, b.ReplayProbe),
	)
}

func compareServer(a, b *history.ServerView) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Or(
		cmp.Compare(a.Start, b.Start),
		cmp.Compare(a.End, b.End),
		cmp.Compare(a.Status, b.Status),
		cmp.Compare(a.Replica, b.Replica),
		strings.Compare(a.ChargeID, b.ChargeID),
		compareBool(a.Replayed, b.Replayed),
	)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// compareCharges is a total order on charges: key, account, seq, then the rest.
func compareCharges(a, b *history.Charge) int {
	if x := strings.Compare(a.Key, b.Key); x != 0 {
		return x
	}
	if x := strings.Compare(a.Account, b.Account); x != 0 {
		return x
	}
	if x := cmp.Compare(a.Seq, b.Seq); x != 0 {
		return x
	}
	return cmp.Or(
		strings.Compare(a.ID, b.ID),
		strings.Compare(a.AttemptID, b.AttemptID),
		cmp.Compare(a.Amount, b.Amount),
	)
}

// compareRedis is a total order on Redis records: key, completed records
// first, then the rest.
func compareRedis(a, b *history.RedisRecord) int {
	return cmp.Or(
		strings.Compare(a.Key, b.Key),
		-compareBool(a.Done, b.Done),
		strings.Compare(a.ChargeID, b.ChargeID),
		cmp.Compare(a.Status, b.Status),
		strings.Compare(a.Fingerprint, b.Fingerprint),
		cmp.Compare(a.TTL, b.TTL),
	)
}

// bySeq orders charges by commit order only (across accounts).
func bySeq(a, b *history.Charge) int {
	if x := cmp.Compare(a.Seq, b.Seq); x != 0 {
		return x
	}
	return compareCharges(a, b)
}
