package check

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// A world is a run generated from a seed whose ground truth is known by
// construction: every key is charged at most once, every 2xx names that
// charge, replays repeat the first 2xx, a changed payload is refused with the
// profile's status, and statuses follow the profile. Injections then break
// exactly one invariant; input turns the world into the checker's Input.
type world struct {
	rng       *rand.Rand
	p         api.Profile
	atts      []history.Attempt
	charges   []history.Charge
	keys      []*genKey
	redis     []history.RedisRecord
	twoStores bool
	// compare is the target's comparison; in JSON mode every 2xx is
	// rendered anew (members reordered, the amount written another way, a
	// fresh "at" and "meta.request"), which the ignored fields absorb.
	compare  ReplayCompare
	quiesced time.Duration // 0: no probe phase
	keyTTL   time.Duration
	op, seq  int
	probeAt  int // ms: the next free probe slot
	keyless  int // ms: the next free slot for keyless attempts
	// skew is added to skewAccount's balance: the one injection made after
	// balances are computed.
	skewAccount string
	skew        int64
}

// genKey is one idempotency key of a world and what is true of it.
type genKey struct {
	name, account string
	amount        int64
	body          string
	window        int    // ms: the key's attempts lie in [window, window+windowMs)
	charge        string // the key's one charge; "" if it never charged
	chargeAt      int    // index of that charge in world.charges
	inWindow      bool   // the key's first 2xx was answered inside its window (not by a probe)
	acks          int    // 2xx answers naming the charge
	declined      bool   // the key was declined (402): never charged, every retry gets the refusal
}

// Layout of a world, in ms: key i's traffic starts at i*windowMs; attempts
// use at most its first 1500 ms, injections the slot at injectMs; keyless
// requests come after every key; the probe phase starts claimMs after the
// faults healed.
const (
	windowMs = 2000
	injectMs = 1700
)

var accounts = []string{"acct_1", "acct_2", "acct_3"}

// generate builds a clean world from rng.
func generate(rng *rand.Rand) *world {
	w := &world{rng: rng, p: api.IETF, twoStores: rng.IntN(2) == 0}
	if rng.IntN(2) == 0 {
		w.p = api.Stripe
	}
	if rng.IntN(3) == 0 {
		w.keyTTL = 24 * time.Hour // documented retention far beyond the run: nothing expires
	}
	if rng.IntN(3) == 0 {
		w.compare = ReplayCompare{JSON: true, Ignore: []string{"at", "meta.request"}}
	}
	n := 1 + rng.IntN(6)
	for i := range n {
		k := &genKey{
			name:    fmt.Sprintf("%08x-%d", rng.Uint32(), i),
			account: accounts[rng.IntN(len(accounts))],
			amount:  int64(100 * (1 + rng.IntN(20))),
			window:  i * windowMs,
		}
		k.body = fmt.Sprintf(`{"amount":%d,"key":%q}`, k.amount, k.name)
		w.keys = append(w.keys, k)
		kind := rng.IntN(7)
		if i == 0 {
			kind = rng.IntN(4) // at least one key charges inside its window
		}
		w.traffic(k, kind)
	}
	w.keyless = n * windowMs
	for range rng.IntN(3) {
		w.keylessRequest()
	}
	if rng.IntN(2) == 0 {
		w.probePhase()
	}
	for _, k := range w.keys {
		w.redis = append(w.redis, w.record(k)...)
	}
	return w
}

// traffic plays one key's attempts: 0 acked at once, 1 response lost after
// the commit then retried, 2 a concurrent duplicate answered 409 at once,
// 3 a failure under a fault that committed nothing then a retry that
// executes, 4 failures only (never charged), 5 a crowd of more than
// smallGroup concurrent duplicates answered 409 while the first runs,
// 6 declined (402), then retried (see decline).
func (w *world) traffic(k *genKey, kind int) {
	t := k.window
	switch kind {
	case 6:
		w.decline(k, t)
		return
	case 0:
		w.execute(k, t)
	case 1:
		a := w.attempt(k, t, timedOut())
		w.commit(k, a)
		w.replay(k, t+1100)
	case 2:
		w.execute(k, t)
		w.attempt(k, t+4, served(t+5, t+8), rejected(w.p.InFlight), returned(t+10))
	case 3:
		w.attempt(k, t, failed(503), faulted("db-cut"))
		w.execute(k, t+100)
	case 4:
		w.attempt(k, t, failed(503), faulted("db-cut"))
		if w.rng.IntN(2) == 0 {
			w.attempt(k, t+100, failed(502), faulted("db-cut"))
		}
		return
	case 5:
		w.execute(k, t, served(t+1, t+100))
		for j := range smallGroup + w.rng.IntN(5) {
			w.attempt(k, t+2+j, served(t+3+j, t+5+j), rejected(w.p.InFlight), returned(t+7+j))
		}
	}
	for i := range w.rng.IntN(3) {
		w.replay(k, t+1200+100*i)
	}
	if w.rng.IntN(3) == 0 {
		w.attempt(k, t+1450, hidden(), w.replayed(k)) // a transport-level re-send, replayed
		k.acked(t + 1450)
	}
	if w.rng.IntN(2) == 0 {
		w.mismatch(k, t+1500, rejected(w.p.Mismatch))
	}
}

// decline plays a key declined with the business refusal: a failure
// under a fault may come first (a 5xx says nothing); then the refusal,
// and retries that get it replayed, a 409 while a duplicate ran, a 5xx
// under a fault, a 429, and maybe another payload refused as a mismatch.
// None of them charges.
func (w *world) decline(k *genKey, t int) {
	k.declined = true
	if w.rng.IntN(3) == 0 {
		w.attempt(k, t, failed(503), faulted("db-cut"))
		t += 100
	}
	w.attempt(k, t, w.refused(k))
	for i := range w.rng.IntN(3) {
		w.attempt(k, t+200+100*i, w.refused(k), replayed())
	}
	switch w.rng.IntN(4) {
	case 0:
		w.attempt(k, t+4, served(t+5, t+8), rejected(w.p.InFlight), returned(t+10))
	case 1:
		w.attempt(k, t+600, failed(503), faulted("db-cut"))
	case 2:
		w.attempt(k, t+700, rejected(429))
	}
	if w.rng.IntN(2) == 0 {
		w.mismatch(k, t+1500, rejected(w.p.Mismatch))
	}
}

// refused answers the refusal of k, rendered as the target renders its
// answers (anew each time in JSON mode).
func (w *world) refused(k *genKey) opt {
	body := w.renderMembers([]string{`"code":"insufficient_funds"`, `"key":` + strconv.Quote(k.name)}, "")
	if !w.compare.JSON {
		body = fmt.Sprintf(`{"code":"insufficient_funds","key":%q}`, k.name)
	}
	return func(a *history.Attempt) { a.Outcome, a.Status, a.Body = history.Rejected, api.StatusDeclined, body }
}

// attempt appends the next operation's attempt of k at t ms.
func (w *world) attempt(k *genKey, t int, opts ...opt) *history.Attempt {
	w.op++
	a := att(w.op, 1, k.name, k.amount, t, append([]opt{onAccount(k.account)}, opts...)...)
	w.atts = append(w.atts, a)
	return &w.atts[len(w.atts)-1]
}

// mismatch appends a retry of k with another amount.
func (w *world) mismatch(k *genKey, t int, opts ...opt) *history.Attempt {
	w.op++
	a := att(w.op, 1, k.name, k.amount+1, t, append([]opt{onAccount(k.account)}, opts...)...)
	w.atts = append(w.atts, a)
	return &w.atts[len(w.atts)-1]
}

// execute appends an attempt of k that charges and is acked.
func (w *world) execute(k *genKey, t int, opts ...opt) *history.Attempt {
	id := fmt.Sprintf("ch_%d", w.seq+1)
	a := w.attempt(k, t, append(opts, acked(201, id, w.render(k, "")))...)
	w.commit(k, a)
	k.acked(t)
	return a
}

// acked counts a 2xx naming k's charge, called at t ms.
func (k *genKey) acked(t int) {
	if k.acks == 0 {
		k.inWindow = t < k.window+windowMs
	}
	k.acks++
}

// commit records the ledger charge made by a, k's one charge.
func (w *world) commit(k *genKey, a *history.Attempt) {
	w.seq++
	k.charge, k.chargeAt = fmt.Sprintf("ch_%d", w.seq), len(w.charges)
	w.charges = append(w.charges, chOn(k.account, ch(k.charge, k.name, a.ID, k.amount, int64(w.seq))))
}

// replayed is the answer to a retry of k: the first 2xx again, with the
// replay header where the profile requires it.
func (w *world) replayed(k *genKey) opt {
	return func(a *history.Attempt) {
		acked(201, k.charge, w.render(k, ""))(a)
		a.Replayed = w.p.ReplayHeader != ""
	}
}

// render is the body of a 2xx for k: its one body byte for byte; in JSON
// mode the same document rendered anew, with extra members appended (a
// member of its own: a change no ignored field absorbs).
func (w *world) render(k *genKey, extra string) string {
	if !w.compare.JSON {
		return k.body + extra
	}
	amount := strconv.FormatInt(k.amount, 10)
	if w.rng.IntN(2) == 0 {
		amount = strconv.FormatInt(k.amount/100, 10) + "e2" // amounts are whole hundreds
	}
	return w.renderMembers([]string{`"amount":` + amount, `"key":` + strconv.Quote(k.name)}, extra)
}

// renderMembers renders a JSON object of members anew: with a fresh "at"
// and "meta.request", extra appended, in a shuffled order.
func (w *world) renderMembers(members []string, extra string) string {
	members = append(members, fmt.Sprintf(`"at":%d`, w.rng.IntN(1_000_000)),
		fmt.Sprintf(`"meta":{"request":"r-%d"}`, w.rng.IntN(1_000_000)))
	if extra != "" {
		members = append(members, extra)
	}
	w.rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	sep := ","
	if w.rng.IntN(2) == 0 {
		sep = ", "
	}
	return "{" + strings.Join(members, sep) + "}"
}

// replay appends a retry of k at t ms that gets the first 2xx back.
func (w *world) replay(k *genKey, t int) {
	w.attempt(k, t, w.replayed(k))
	k.acked(t)
}

// keylessRequest appends a POST without a key: refused where the profile
// requires a key, else charged like any request.
func (w *world) keylessRequest() {
	w.op++
	t := w.keyless
	w.keyless += 100
	acct := accounts[w.rng.IntN(len(accounts))]
	if w.p.MissingKey != 0 {
		w.atts = append(w.atts, att(w.op, 1, "", 300, t, onAccount(acct), rejected(w.p.MissingKey)))
		return
	}
	w.seq++
	id := fmt.Sprintf("ch_%d", w.seq)
	a := att(w.op, 1, "", 300, t, onAccount(acct), acked(201, id, "keyless"))
	w.atts = append(w.atts, a)
	w.charges = append(w.charges, chOn(acct, ch(id, "", a.ID, 300, int64(w.seq))))
}

// probePhase heals the faults after every window and retries some keys
// once their claims have expired: a charged key replays, a key that never
// charged executes.
func (w *world) probePhase() {
	w.quiesced = ms(w.keyless + 1000)
	w.probeAt = w.keyless + 1000 + claimMs
	for _, k := range w.keys {
		if w.rng.IntN(3) == 0 {
			continue
		}
		switch {
		case k.declined:
			w.attempt(k, w.nextProbe(), w.refused(k), replayed())
			continue
		case k.charge == "":
			w.execute(k, w.nextProbe())
			continue
		}
		w.replay(k, w.nextProbe())
	}
}

// nextProbe is the time of a new probe, clear of every other probe.
func (w *world) nextProbe() int {
	t := w.probeAt
	w.probeAt += 100
	return t
}

// enableProbes gives a world without a probe phase one.
func (w *world) enableProbes() {
	if w.quiesced == 0 {
		w.quiesced = ms(w.keyless + 1000)
		w.probeAt = w.keyless + 1000 + claimMs
	}
}

// record is what a correct two-store target leaves in Redis for k: a
// completed record naming its charge, or its stored refusal; for a key
// that never charged, nothing, a claim or a stored failure.
func (w *world) record(k *genKey) []history.RedisRecord {
	switch {
	case k.charge != "":
		return []history.RedisRecord{done(k.name, 201, k.charge)}
	case k.declined:
		return []history.RedisRecord{done(k.name, api.StatusDeclined, "")}
	}
	switch w.rng.IntN(3) {
	case 0:
		return []history.RedisRecord{claimed(k.name, time.Duration(w.rng.IntN(30))*time.Second)}
	case 1:
		return []history.RedisRecord{done(k.name, 402, "")}
	}
	return nil
}

// input is the checker's view of w: balances follow from the charges,
// attempts, charges, records and accounts come in a shuffled order.
func (w *world) input() Input {
	sums := map[string]int64{}
	for _, c := range w.charges {
		sums[c.Account] += c.Amount
	}
	names := slices.Clone(accounts)
	for a := range sums {
		if !slices.Contains(names, a) {
			names = append(names, a)
		}
	}
	slices.Sort(names)
	var accts []history.Account
	for i, a := range names {
		open := int64(50_000 + 1000*i)
		accts = append(accts, history.Account{ID: a, Opening: open, Balance: open - sums[a]})
		if a == w.skewAccount {
			accts[i].Balance += w.skew
		}
	}
	in := Input{Profile: w.p, TwoStores: w.twoStores, Replay: w.compare, History: history.History{
		Seed:     w.rng.Uint64(),
		Attempts: shuffled(w.rng, w.atts),
		KeyTTL:   w.keyTTL,
		End:      ms(w.probeAt + 1000),
	}, Ledger: history.Ledger{Charges: shuffled(w.rng, w.charges), Accounts: shuffled(w.rng, accts), Redis: shuffled(w.rng, w.redis)}}
	if in.History.End < ms(w.keyless+1000) {
		in.History.End = ms(w.keyless + 1000)
	}
	if w.quiesced > 0 {
		in.History.Quiesced, in.History.ClaimTimeout = w.quiesced, ms(claimMs)
	}
	return in
}

// pick returns a random key of w that satisfies ok, or nil.
func (w *world) pick(ok func(*genKey) bool) *genKey {
	var fit []*genKey
	for _, k := range w.keys {
		if ok(k) {
			fit = append(fit, k)
		}
	}
	if len(fit) == 0 {
		return nil
	}
	return fit[w.rng.IntN(len(fit))]
}

// attemptsOf returns the indexes of k's attempts in w.atts that satisfy ok.
func (w *world) attemptsOf(k *genKey, ok func(*history.Attempt) bool) []int {
	var out []int
	for i := range w.atts {
		if a := &w.atts[i]; a.Key == k.name && ok(a) {
			out = append(out, i)
		}
	}
	return out
}

// describe summarises w for a failure message.
func (w *world) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "profile %s, two stores %v, quiesced %v, key ttl %v, replay compared %s\n", w.p.Name, w.twoStores, w.quiesced,
		w.keyTTL, w.compare)
	for _, a := range w.atts {
		fmt.Fprintf(&b, "  %s key=%.10s acct=%s amt=%d call=%v status=%d %s charge=%s replayed=%v hidden=%v probe=%v fault=%s body=%s\n",
			a.ID, a.Key, a.Account, a.Amount, a.Call, a.Status, a.Outcome, a.ChargeID, a.Replayed, a.Hidden, a.ReplayProbe, a.Fault, a.Body)
	}
	for _, c := range w.charges {
		fmt.Fprintf(&b, "  %s key=%.10s acct=%s amt=%d by %s seq %d\n", c.ID, c.Key, c.Account, c.Amount, c.AttemptID, c.Seq)
	}
	return b.String()
}
