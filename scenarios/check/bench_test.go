package check

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

const genAccounts = 100

// generator builds a large history of 4 attempts per key, in one of four
// clean shapes, with a double charge on every 5000th key (from the 8th) and an
// executed payload mismatch on every 5000th key (from the 12th), and the
// balance of acct_0 off by one.
type generator struct {
	atts    []history.Attempt
	charges []history.Charge
	sums    [genAccounts]int64
	fps     map[string]string
}

func genInput(keys int, seed uint64) Input {
	g := &generator{
		atts:    make([]history.Attempt, 0, 4*keys),
		charges: make([]history.Charge, 0, keys+keys/1000),
		fps:     make(map[string]string),
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range keys {
		g.key(i, fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()))
	}
	l := history.Ledger{Charges: g.charges}
	for i, sum := range g.sums {
		const opening = 1_000_000_000
		l.Accounts = append(l.Accounts, history.Account{
			ID: "acct_" + strconv.Itoa(i), Opening: opening, Balance: opening - sum,
		})
	}
	l.Accounts[0].Balance--
	return Input{History: history.History{Seed: seed, Attempts: g.atts}, Ledger: l, Profile: api.IETF}
}

func (g *generator) key(i int, key string) {
	acct := i % genAccounts
	amount := int64(100 + i%50)
	op := 4 * i
	t := time.Duration(i) * 10 * time.Millisecond
	a := g.attempt(op, 1, key, acct, amount, t)
	switch {
	case i%5000 == 7: // no idempotency: the retry after a dropped response charges again
		g.timeout(a)
		g.charge(a, acct)
		b := g.attempt(op, 2, key, acct, amount, t+1100*time.Millisecond)
		id := g.charge(b, acct)
		g.ack(b, id, false)
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+2*time.Second), id, true)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+3*time.Second), id, true)
	case i%5000 == 11: // no fingerprint: another amount gets the first 2xx
		id := g.charge(a, acct)
		g.ack(a, id, false)
		g.ack(g.attempt(op+1, 1, key, acct, amount+1, t+100*time.Millisecond), id, true)
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond), id, true)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+300*time.Millisecond), id, true)
	case i%4 == 0: // concurrent duplicates: 409, then replays
		id := g.charge(a, acct)
		g.ack(a, id, false)
		b := g.attempt(op+1, 1, key, acct, amount, t+5*time.Millisecond)
		b.Server.Start, b.Server.End = t+6*time.Millisecond, t+8*time.Millisecond
		b.Outcome, b.Status = history.Rejected, 409
		g.ack(g.attempt(op+1, 2, key, acct, amount, t+100*time.Millisecond), id, true)
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond), id, true)
	case i%4 == 1: // dropped response: retried and replayed, a duplicate meanwhile
		g.timeout(a)
		id := g.charge(a, acct)
		b := g.attempt(op, 2, key, acct, amount, t+1100*time.Millisecond)
		g.ack(b, id, true)
		c := g.attempt(op+1, 1, key, acct, amount, t+1105*time.Millisecond)
		c.Server.Start, c.Server.End = t+1106*time.Millisecond, t+1108*time.Millisecond
		c.Outcome, c.Status = history.Rejected, 409
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+2*time.Second), id, true)
	case i%4 == 2: // payload mismatch answered 422
		id := g.charge(a, acct)
		g.ack(a, id, false)
		b := g.attempt(op+1, 1, key, acct, amount+7, t+100*time.Millisecond)
		b.Outcome, b.Status = history.Rejected, 422
		g.ack(g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond), id, true)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+300*time.Millisecond), id, true)
	default: // two requests without a key answered 400, then a keyed one replayed
		a.Key, a.Outcome, a.Status = "", history.Rejected, 400
		b := g.attempt(op+1, 1, "", acct, amount, t+100*time.Millisecond)
		b.Outcome, b.Status = history.Rejected, 400
		c := g.attempt(op+2, 1, key, acct, amount, t+200*time.Millisecond)
		id := g.charge(c, acct)
		g.ack(c, id, false)
		g.ack(g.attempt(op+3, 1, key, acct, amount, t+300*time.Millisecond), id, true)
	}
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

func TestGenerated(t *testing.T) {
	in := genInput(25_000, 1)
	if n := len(in.History.Attempts); n != 100_000 {
		t.Fatalf("%d attempts, want 100000", n)
	}
	r := Run(in)
	assertCounts(t, r, map[string]int{DoubleCharge: 5, LostAck: 5, MismatchExecuted: 5, Balance: 1})
	// keys 7, 5007, ... charge 100 + i%50 twice: i%50 is 7 for each.
	if r.Overcharged != 5*107 {
		t.Errorf("Overcharged = %d, want %d", r.Overcharged, 5*107)
	}
	for _, f := range r.Findings {
		assertDetail(t, f)
	}
}

func BenchmarkRun(b *testing.B) {
	in := genInput(25_000, 1)
	n := len(in.History.Attempts)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	runs := 0
	var r Report
	for b.Loop() {
		r = Run(in)
		runs++
	}
	runtime.ReadMemStats(&after)
	if !r.Failed() {
		b.Fatal("the generated history should hold anomalies")
	}
	b.ReportMetric(float64(n*runs)/b.Elapsed().Seconds(), "attempts/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n*runs), "allocs/attempt")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n*runs), "B/attempt")
}
