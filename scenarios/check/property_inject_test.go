package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// An injection breaks exactly one invariant of a clean world. apply picks one
// of the variants that fit the world, applies it and returns its name and the
// key (the account, for balance) a finding must name.
type injection struct {
	variants []string
	apply    func(w *world) (variant, target string)
}

// injections holds one injection per anomaly the checker knows. Every variant
// breaks its invariant and no other, so the checker must report exactly that
// anomaly.
var injections = map[Anomaly]injection{
	DoubleCharge:     {[]string{"unrecorded attempt", "same-payload attempt"}, injectDoubleCharge},
	LostAck:          {[]string{"amount", "account"}, injectLostAck},
	ReplayMismatch:   {[]string{"body", "probe after one 2xx", "json field"}, injectReplayMismatch},
	MismatchExecuted: {[]string{"acked", "charged, timed out"}, injectMismatchExecuted},
	Balance:          {[]string{"skew"}, injectBalance},
	StatusContract:   {[]string{"keyless", "mismatch status", "duplicate 5xx", "no replay header", "lone replay, no header"}, injectStatus},
	StuckKey:         {[]string{"probe 409"}, injectStuck},
	StoreDesync:      {[]string{"no record", "claim only", "stored failure", "unknown charge"}, injectDesync},
	CachedError:      {[]string{"probe 5xx", "replayed 5xx"}, injectCachedError},
	HeldDuplicate:    {[]string{"server log", "client timings"}, injectHeld},
	RefusalNotReplayed: {[]string{"charged retry", "other refusal body", "unrecorded charge", "charged, then declined"},
		injectRefusal},
}

func charged(k *genKey) bool  { return k.charge != "" }
func inWindow(k *genKey) bool { return k.inWindow }
func anyKey(*genKey) bool     { return true }

// newCharge appends a ledger row and returns its id.
func (w *world) newCharge(acct, key, attempt string, amount int64) string {
	w.seq++
	id := fmt.Sprintf("ch_%d", w.seq)
	w.charges = append(w.charges, chOn(acct, ch(id, key, attempt, amount, int64(w.seq))))
	return id
}

// injectDoubleCharge charges a key a second time, by no recorded attempt or
// by one of its same-payload attempts.
func injectDoubleCharge(w *world) (string, string) {
	k := w.pick(charged)
	if w.rng.IntN(2) == 0 {
		w.newCharge(k.account, k.name, "", k.amount)
		return "unrecorded attempt", k.name
	}
	same := w.attemptsOf(k, func(a *history.Attempt) bool { return a.Fingerprint == fp(k.account, k.amount) })
	w.newCharge(k.account, k.name, w.atts[same[w.rng.IntN(len(same))]].ID, k.amount)
	return "same-payload attempt", k.name
}

// injectLostAck makes the ledger row the key's 2xx answers name disagree
// with them, in amount or account (balances follow the ledger).
func injectLostAck(w *world) (string, string) {
	k := w.pick(func(k *genKey) bool { return k.acks > 0 })
	c := &w.charges[k.chargeAt]
	if w.rng.IntN(2) == 0 {
		c.Amount += int64(1 + w.rng.IntN(50))
		return "amount", k.name
	}
	c.Account = "acct_9"
	return "account", k.name
}

// injectReplayMismatch adds a retry answered with the key's charge but
// another body; or, to a key whose client saw one 2xx, a replay probe
// whose body differs (by a byte; in JSON mode by a member no ignored field
// covers); or, in JSON mode, a retry whose body changes a field that is
// not ignored.
func injectReplayMismatch(w *world) (string, string) {
	variants := []string{"body"}
	if w.pick(oneAck) != nil {
		variants = append(variants, "probe after one 2xx")
	}
	if w.compare.JSON {
		variants = append(variants, "json field")
	}
	switch v := variants[w.rng.IntN(len(variants))]; v {
	case "probe after one 2xx":
		k := w.pick(oneAck)
		a := w.attempt(k, k.window+injectMs, w.replayed(k))
		a.ReplayProbe, a.Body = true, w.render(k, `"note":"rendered again"`)
		if !w.compare.JSON {
			a.Body = k.body + " "
		}
		return v, k.name
	case "json field":
		k := w.pick(inWindow)
		a := w.attempt(k, k.window+injectMs, w.replayed(k))
		a.Body = strings.Replace(a.Body, strconv.Quote(k.name), `"another"`, 1)
		return v, k.name
	}
	k := w.pick(inWindow)
	a := w.attempt(k, k.window+injectMs, w.replayed(k))
	a.Body += " (again)"
	return "body", k.name
}

// oneAck: a key whose client saw exactly one 2xx, inside its window.
func oneAck(k *genKey) bool { return k.inWindow && k.acks == 1 }

// loneReplay: a charged key whose one 2xx (not a hidden re-send's) was
// answered to another attempt than the one that made its charge.
func loneReplay(w *world) func(*genKey) bool {
	return func(k *genKey) bool {
		if k.charge == "" || k.acks != 1 {
			return false
		}
		acks := w.attemptsOf(k, func(a *history.Attempt) bool { return a.Outcome == history.Acked })
		return len(acks) == 1 && !w.atts[acks[0]].Hidden && w.atts[acks[0]].ID != w.charges[k.chargeAt].AttemptID
	}
}

// injectMismatchExecuted adds a request that reuses a key with another
// payload (another account) and executes: acked with its own charge, or
// charged and timed out.
func injectMismatchExecuted(w *world) (string, string) {
	k := w.pick(inWindow)
	w.op++
	id := fmt.Sprintf("ch_%d", w.seq+1)
	variant, answer := "charged, timed out", timedOut()
	if w.rng.IntN(2) == 0 {
		variant, answer = "acked", acked(201, id, `{"other":true}`)
	}
	a := att(w.op, 1, k.name, k.amount, k.window+injectMs, onAccount("acct_9"), answer)
	w.atts = append(w.atts, a)
	w.newCharge("acct_9", k.name, a.ID, k.amount)
	return variant, k.name
}

// injectBalance leaves one account's balance off by a few units.
func injectBalance(w *world) (string, string) {
	w.skewAccount = accounts[w.rng.IntN(len(accounts))]
	w.skew = int64(1 + w.rng.IntN(999))
	if w.rng.IntN(2) == 0 {
		w.skew = -w.skew
	}
	return "skew", w.skewAccount
}

// injectStatus answers one request with a status the profile forbids: a
// keyless request, a payload mismatch, a concurrent duplicate answered 5xx
// with no fault placed on it, or (stripe) a replay without its header: a
// further 2xx, or the key's one 2xx when another attempt made its charge.
func injectStatus(w *world) (string, string) {
	variants := []string{"keyless", "mismatch status", "duplicate 5xx"}
	if w.p.ReplayHeader != "" {
		variants = append(variants, "no replay header")
		if w.pick(loneReplay(w)) != nil {
			variants = append(variants, "lone replay, no header")
		}
	}
	switch v := variants[w.rng.IntN(len(variants))]; v {
	case "keyless":
		w.op++
		t := w.keyless
		w.keyless += 100
		o := failed(500 + w.rng.IntN(4))
		if w.p.MissingKey != 0 && w.rng.IntN(2) == 0 {
			o = rejected(w.p.MissingKey + 1 + w.rng.IntN(10))
		}
		w.atts = append(w.atts, att(w.op, 1, "", 300, t, o))
		return v, ""
	case "mismatch status":
		k := w.pick(anyKey)
		o := failed(500)
		if w.rng.IntN(2) == 0 {
			o = rejected(404)
		}
		w.mismatch(k, k.window+injectMs, o)
		return v, k.name
	case "duplicate 5xx":
		k := w.pick(anyKey)
		in := w.attemptsOf(k, func(a *history.Attempt) bool {
			return a.Fingerprint == fp(k.account, k.amount) && a.Server != nil && a.Call < ms(k.window+windowMs)
		})
		p := w.atts[in[w.rng.IntN(len(in))]]
		start := int(p.Server.Start / time.Millisecond)
		w.attempt(k, int(p.Call/time.Millisecond), served(start+1, start+3), failed(503))
		return v, k.name
	case "lone replay, no header": // the one 2xx the client saw, after the try that charged lost its answer
		k := w.pick(loneReplay(w))
		for _, i := range w.attemptsOf(k, func(a *history.Attempt) bool { return a.Outcome == history.Acked }) {
			w.atts[i].Replayed, w.atts[i].Server.Replayed = false, false
		}
		return v, k.name
	default:
		k := w.pick(inWindow)
		w.attempt(k, k.window+injectMs, acked(201, k.charge, w.render(k, "")))
		return v, k.name
	}
}

// injectStuck adds a probe answered with the in-flight status while nothing
// else holds the key.
func injectStuck(w *world) (string, string) {
	w.enableProbes()
	k := w.pick(anyKey)
	w.attempt(k, w.nextProbe(), rejected(w.p.InFlight))
	return "probe 409", k.name
}

// injectCachedError serves a 5xx to a probe, or replays one, for a key
// where the profile forbids it (stripe: a key that charged).
func injectCachedError(w *world) (string, string) {
	fit := anyKey
	if w.p.ReplayErrors {
		fit = charged
	}
	k := w.pick(fit)
	if w.rng.IntN(2) == 0 {
		w.attempt(k, k.window+injectMs, failed(500+w.rng.IntN(4)), replayed())
		return "replayed 5xx", k.name
	}
	w.enableProbes()
	w.attempt(k, w.nextProbe(), failed(503))
	return "probe 5xx", k.name
}

// injectHeld adds a duplicate of a charged key sent 5 ms after the maker of
// its charge started and answered its replay 1 ms after the maker finished,
// as the server logged it or, when the maker was acked, as the client saw
// it (the maker's answer then reaches its client 250 ms later: a wait the
// client's clock can judge). It goes to replica 1, which refused nothing (a clean world's in-flight
// refusals are on replica 0: they show that replica refuses duplicates, and
// the checker then leaves its late answers alone).
func injectHeld(w *world) (string, string) {
	k := w.pick(charged)
	o := w.maker(k)
	if o.Outcome == history.Acked && w.rng.IntN(2) == 0 {
		t := int(o.Call/time.Millisecond) + 5
		o.Return += 250 * time.Millisecond // long enough to judge on the client's clock
		w.attempt(k, t, unserved(), w.replayed(k), returned(int(o.Return/time.Millisecond)+1), onReplica(1))
		k.acked(t)
		return "client timings", k.name
	}
	start, end := int(o.Server.Start/time.Millisecond), int(o.Server.End/time.Millisecond)
	ret := end + 3
	if o.Outcome == history.Acked {
		ret = max(ret, int(o.Return/time.Millisecond)+1) // the client hears the original first
	}
	w.attempt(k, start+4, served(start+5, end+1), w.replayed(k), returned(ret), onReplica(1))
	k.acked(start + 4)
	return "server log", k.name
}

// maker returns the attempt that made k's charge.
func (w *world) maker(k *genKey) *history.Attempt {
	id := w.charges[k.chargeAt].AttemptID
	for i := range w.atts {
		if w.atts[i].ID == id {
			return &w.atts[i]
		}
	}
	panic("no maker of " + k.charge)
}

// injectDesync makes a two-store target's Redis disagree with the ledger
// about a charged key: its record gone, only a claim, a stored failure, or
// naming a charge the ledger does not hold.
func injectDesync(w *world) (string, string) {
	w.twoStores = true
	k := w.pick(charged)
	i := 0
	for w.redis[i].Key != k.name {
		i++
	}
	switch w.rng.IntN(4) {
	case 0:
		w.redis = append(w.redis[:i], w.redis[i+1:]...)
		return "no record", k.name
	case 1:
		w.redis[i] = claimed(k.name, time.Duration(1+w.rng.IntN(30))*time.Second)
		return "claim only", k.name
	case 2:
		w.redis[i] = done(k.name, 503, "")
		return "stored failure", k.name
	}
	w.redis[i] = done(k.name, 201, "ch_ghost")
	return "unknown charge", k.name
}

func declinedKey(k *genKey) bool { return k.declined }

// injectRefusal breaks the refusal half of the replay rule: a retry of a
// declined key charged and answered 201, answered its refusal with
// another body, or a charge of a declined key by no recorded attempt; or
// a retry of a charged key declined. A two-store target's record follows
// the new charge, so that Redis and Postgres agree.
func injectRefusal(w *world) (string, string) {
	variants := []string{"charged, then declined"}
	if w.pick(declinedKey) != nil {
		variants = append(variants, "charged retry", "other refusal body", "unrecorded charge")
	}
	v := variants[w.rng.IntN(len(variants))]
	if v == "charged, then declined" {
		k := w.pick(charged)
		w.attempt(k, k.window+injectMs, w.refused(k))
		return v, k.name
	}
	k := w.pick(declinedKey)
	switch v {
	case "other refusal body":
		a := w.attempt(k, k.window+injectMs, w.refused(k))
		a.Body = strings.Replace(a.Body, `"insufficient_funds"`, `"card_declined"`, 1)
		return v, k.name
	case "charged retry":
		id := fmt.Sprintf("ch_%d", w.seq+1)
		a := w.attempt(k, k.window+injectMs, acked(201, id, w.render(k, "")))
		w.newCharge(k.account, k.name, a.ID, k.amount)
		w.storeRecord(k, id)
		return v, k.name
	}
	w.storeRecord(k, w.newCharge(k.account, k.name, "", k.amount))
	return v, k.name
}

// storeRecord makes k's Redis record name charge, as a two-store target
// that stored it would.
func (w *world) storeRecord(k *genKey, charge string) {
	for i := range w.redis {
		if w.redis[i].Key == k.name {
			w.redis[i] = done(k.name, 201, charge)
		}
	}
}
