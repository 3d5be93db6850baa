package load

import (
	"math/rand/v2"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// Currency is the currency of every generated charge.
const Currency = workload.Currency

// Opening is the opening balance of every account: enough that no run within
// the bounds (MaxCount charges of at most maxAmount) empties one.
const Opening int64 = 1 << 50

// Amounts drawn per charge, in minor units.
const (
	minAmount = 100
	maxAmount = 9999
)

// Request is one POST /v1/charges the load sends.
type Request struct {
	Index    int // position in the run; the attempt id is built from it
	Key      string
	Account  string
	Amount   int64
	Currency string
	// Dup marks a retry: the key and body of an earlier request, Of.
	Dup bool
	Of  int
}

// Op is the request as a single-try workload operation, ready for the
// recording client.
func (r Request) Op() workload.Op {
	return workload.Op{ID: r.Index, Key: r.Key, Account: r.Account, Amount: r.Amount, Currency: r.Currency,
		Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: 0}}}
}

// Gen draws the requests of a run from a seeded stream: a fresh UUIDv4 key,
// or, with probability DupRatio, a retry of one of the last DupWindow fresh
// requests (same key, same body). Call Next in index order; the same seed
// gives the same requests.
type Gen struct {
	rng      *rand.Rand
	dup      float64
	accounts int
	recent   []Request // ring of the last fresh requests
	next     int       // ring position of the next fresh request
}

// NewGen returns the generator of a run configured by c.
func NewGen(c Config) *Gen {
	return &Gen{rng: workload.Seeded(c.Seed, "load/requests"), dup: c.DupRatio,
		accounts: orDefault(c.Accounts, DefaultAccounts),
		recent:   make([]Request, 0, orDefault(c.DupWindow, DefaultDupWindow))}
}

// Accounts lists the accounts the generator charges, for opening them.
func (g *Gen) Accounts() []workload.Account {
	out := make([]workload.Account, g.accounts)
	for i := range out {
		out[i] = workload.Account{ID: workload.AccountID(i + 1), Currency: Currency, Opening: Opening}
	}
	return out
}

// Next draws request i.
func (g *Gen) Next(i int) Request {
	if len(g.recent) > 0 && g.rng.Float64() < g.dup {
		orig := g.recent[g.rng.IntN(len(g.recent))]
		r := orig
		r.Index, r.Dup, r.Of = i, true, orig.Index
		return r
	}
	r := Request{Index: i, Key: workload.NewKey(g.rng), Account: workload.AccountID(1 + g.rng.IntN(g.accounts)),
		Amount: minAmount + g.rng.Int64N(maxAmount-minAmount+1), Currency: Currency, Of: i}
	g.remember(r)
	return r
}

func (g *Gen) remember(r Request) {
	if len(g.recent) < cap(g.recent) {
		g.recent = append(g.recent, r)
		return
	}
	g.recent[g.next] = r
	g.next = (g.next + 1) % len(g.recent)
}
