// Package checkgen generates large histories of a two-store target with
// known anomalies, for the checker's benchmarks and for timing the check
// of a saved run: what a long soak records, built in memory.
package checkgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

const genAccounts = 100

// generator builds a large history of a two-store target: 4 attempts per
// key, in one of four clean shapes, then a probe phase that retries every key
// once after the faults healed and the claims expired, and a Redis record per
// key naming its charge. Anomalies: a double charge on every 5000th key (from
// the 8th), an executed payload mismatch on every 5000th key (from the 12th),
// a key poisoned by a claim left behind on every 5000th key (from the 20th),
// a cached 503 replayed 4 times on every 5000th key (from the 24th), a lost
// Redis write on every 5000th key (from the 30th), and the balance of acct_0
// off by one.
type generator struct {
	atts    []history.Attempt
	charges []history.Charge
	redis   []history.RedisRecord
	probes  []genProbe
	sums    [genAccounts]int64
	fps     map[string]string
}

// genProbe is the retry of one key sent in the probe phase and its answer:
// the replay of charge, or status (409: stuck, 503: a cached error).
type genProbe struct {
	key    string
	acct   int
	amount int64
	op     int
	charge string
	status int
}

// ClaimTimeout is the generated target's claim timeout.
const ClaimTimeout = 500 * time.Millisecond

// Generate builds the history and ledger of keys keys (5 attempts each
// with the probe) and the anomalies listed on generator, from seed.
func Generate(keys int, seed uint64) (history.History, history.Ledger) {
	g := &generator{
		atts:    make([]history.Attempt, 0, 5*keys),
		charges: make([]history.Charge, 0, keys+keys/1000),
		redis:   make([]history.RedisRecord, 0, keys),
		probes:  make([]genProbe, 0, keys),
		fps:     make(map[string]string),
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range keys {
		g.key(i, fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()))
	}
	quiesced := time.Duration(keys)*10*time.Millisecond + 4*time.Second
	for i, p := range g.probes {
		g.probe(p, quiesced+ClaimTimeout+time.Duration(i)*10*time.Microsecond)
	}
	l := history.Ledger{Charges: g.charges, Redis: g.redis}
	for i, sum := range g.sums {
		const opening = 1_000_000_000
		l.Accounts = append(l.Accounts, history.Account{
			ID: "acct_" + strconv.Itoa(i), Opening: opening, Balance: opening - sum,
		})
	}
	l.Accounts[0].Balance--
	return history.History{Seed: seed, Attempts: g.atts, Quiesced: quiesced, ClaimTimeout: ClaimTimeout}, l
}

func (g *generator) key(i int, key string) {
	acct := i % genAccounts
	amount := int64(100 + i%50)
	op := 4 * i
	t := time.Duration(i) * 10 * time.Millisecond
	a := g.attempt(op, 1, key, acct, amount, t)
	p := genProbe{key: key, acct: acct, amount: amount, op: op, status: 201}
	defer func() {
		g.probes = append(g.probes, p)
		switch p.status {
		case 201:
			if i%5000 != 29 { // the Redis write after the commit was lost
				g.redis = append(g.redis, history.RedisRecord{Key: key, Fingerprint: a.Fingerprint, Done: true,
					Status: 201, ChargeID: p.charge, TTL: 24 * time.Hour})
			}
		case 409:
			g.redis = append(g.redis, history.RedisRecord{Key: key, Fingerprint: a.Fingerprint, TTL: -1})
		default:
			g.redis = append(g.redis, history.RedisRecord{Key: key, Fingerprint: a.Fingerprint, Done: true,
				Status: p.status, TTL: 24 * time.Hour})
		}
	}()
	switch {
	case i%5000 == 7: // no idempotency: the retry after a dropped response charges again
		g.timeout(a)
		g.charge(a, acct)
		b := g.attempt(op, 2, key, acct, amount, t+1100*time.Millisecond)
		id := g.charge(b, acct)
		g.ack(b, id, false)
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+2*time.Second), id, true)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+3*time.Second), id, true)
		p.charge = id
	case i%5000 == 11: // no fingerprint: another amount gets the first 2xx
		id := g.charge(a, acct)
		g.ack(a, id, false)
		g.ack(g.attempt(op+1, 1, key, acct, amount+1, t+100*time.Millisecond), id, true)
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond), id, true)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+300*time.Millisecond), id, true)
		p.charge = id
	case i%5000 == 19: // sticky claim: the failed charge never released it
		g.fail(a, false)
		a.Fault = "db-cut"
		for _, b := range []*history.Attempt{
			g.attempt(op, 2, key, acct, amount, t+1100*time.Millisecond),
			g.attempt(op+1, 1, key, acct, amount, t+2*time.Second),
			g.attempt(op+2, 1, key, acct, amount, t+3*time.Second),
		} {
			b.Outcome, b.Status, b.Server.Status = history.Rejected, 409, 409
		}
		p.status = 409
	case i%5000 == 23: // cached error: the 503 is stored and replayed
		g.fail(a, false)
		a.Fault = "db-cut"
		g.fail(g.attempt(op, 2, key, acct, amount, t+1100*time.Millisecond), true)
		g.fail(g.attempt(op+1, 1, key, acct, amount, t+2*time.Second), true)
		g.fail(g.attempt(op+2, 1, key, acct, amount, t+3*time.Second), true)
		p.status = 503
	case i%4 == 0: // concurrent duplicates: 409, then replays
		id := g.charge(a, acct)
		g.ack(a, id, false)
		b := g.attempt(op+1, 1, key, acct, amount, t+5*time.Millisecond)
		b.Server.Start, b.Server.End = t+6*time.Millisecond, t+8*time.Millisecond
		b.Outcome, b.Status = history.Rejected, 409
		g.ack(g.attempt(op+1, 2, key, acct, amount, t+100*time.Millisecond), id, true)
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond), id, true)
		p.charge = id
	case i%4 == 1: // dropped response: retried and replayed, a duplicate meanwhile
		g.timeout(a)
		id := g.charge(a, acct)
		b := g.attempt(op, 2, key, acct, amount, t+1100*time.Millisecond)
		g.ack(b, id, true)
		c := g.attempt(op+1, 1, key, acct, amount, t+1105*time.Millisecond)
		c.Server.Start, c.Server.End = t+1106*time.Millisecond, t+1108*time.Millisecond
		c.Outcome, c.Status = history.Rejected, 409
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+2*time.Second), id, true)
		p.charge = id
	case i%4 == 2: // payload mismatch answered 422
		id := g.charge(a, acct)
		g.ack(a, id, false)
		b := g.attempt(op+1, 1, key, acct, amount+7, t+100*time.Millisecond)
		b.Outcome, b.Status = history.Rejected, 422
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond), id, true)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+300*time.Millisecond), id, true)
		p.charge = id
	default: // two requests without a key answered 400, then a keyed one replayed
		a.Key, a.Outcome, a.Status = "", history.Rejected, 400
		b := g.attempt(op+1, 1, "", acct, amount, t+100*time.Millisecond)
		b.Outcome, b.Status = history.Rejected, 400
		c := g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond)
		id := g.charge(c, acct)
		g.ack(c, id, false)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+300*time.Millisecond), id, true)
		p.charge = id
	}
}

// probe appends p's retry, called at t: a replay, a 409 or a replayed 503.
func (g *generator) probe(p genProbe, t time.Duration) {
	a := g.attempt(p.op, 9, p.key, p.acct, p.amount, t)
	switch p.status {
	case 201:
		g.ack(a, p.charge, true)
	case 409:
		a.Outcome, a.Status, a.Server.Status = history.Rejected, 409, 409
	default:
		g.fail(a, true)
	}
}

// fail makes a an indeterminate 503, replayed or not.
func (g *generator) fail(a *history.Attempt, replay bool) {
	a.Outcome, a.Status, a.Replayed = history.Indeterminate, 503, replay
	a.Server.Status, a.Server.Replayed = 503, replay
}

// attempt appends an attempt served over [t+1ms, t+40ms] and returning at t+50ms.
func (g *generator) attempt(op, try int, key string, acct int, amount int64, t time.Duration) *history.Attempt {
	account := "acct_" + strconv.Itoa(acct)
	fpKey := account + "/" + strconv.FormatInt(amount, 10)
	f, ok := g.fps[fpKey]
	if !ok {
		f = api.ChargeRequest{Account: account, Amount: amount, Currency: "EUR"}.Fingerprint()
		g.fps[fpKey] = f
	}
	g.atts = append(g.atts, history.Attempt{
		Op: op, Try: try, ID: "a" + strconv.Itoa(op) + "-" + strconv.Itoa(try),
		Key: key, Account: account, Amount: amount, Fingerprint: f,
		Call: t, Return: t + 50*time.Millisecond,
		Server: &history.ServerView{Start: t + time.Millisecond, End: t + 40*time.Millisecond},
	})
	return &g.atts[len(g.atts)-1]
}

func (g *generator) timeout(a *history.Attempt) {
	a.Outcome, a.Err, a.Return = history.Indeterminate, "timeout", a.Call+time.Second
}

func (g *generator) ack(a *history.Attempt, charge string, replay bool) {
	a.Outcome, a.Status, a.ChargeID, a.Replayed = history.Acked, 201, charge, replay
	a.Body = `{"id":"` + charge + `"}`
	a.Server.Status, a.Server.ChargeID, a.Server.Replayed = 201, charge, replay
}

func (g *generator) charge(a *history.Attempt, acct int) string {
	seq := len(g.charges) + 1
	id := "ch_" + strconv.Itoa(seq)
	g.charges = append(g.charges, history.Charge{
		ID: id, Account: a.Account, Amount: a.Amount, Key: a.Key, AttemptID: a.ID, Seq: int64(seq),
	})
	g.sums[acct] += a.Amount
	return id
}
