package load

import (
	"regexp"
	"testing"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func draw(c Config, n int) []Request {
	g := NewGen(c)
	out := make([]Request, n)
	for i := range out {
		out[i] = g.Next(i)
	}
	return out
}

func TestDuplicateRatioFromTheSeed(t *testing.T) {
	const n = 20_000
	for _, p := range []float64{0, 0.1, 0.5, 1} {
		rs := draw(Config{Seed: 7, DupRatio: p}, n)
		dups := 0
		for _, r := range rs {
			if r.Dup {
				dups++
			}
		}
		want := p * n
		if p == 1 {
			want = n - 1 // the first request has nothing to retry
		}
		if got := float64(dups); got < want-0.01*n || got > want+0.01*n {
			t.Errorf("dup ratio %g: %d duplicates in %d, want about %.0f", p, dups, n, want)
		}
	}
}

func TestDuplicatesRetryAnEarlierRequest(t *testing.T) {
	rs := draw(Config{Seed: 3, DupRatio: 0.3, DupWindow: 4}, 10_000)
	seen := map[string]bool{}
	for i, r := range rs {
		if r.Index != i {
			t.Fatalf("request %d has index %d", i, r.Index)
		}
		if !r.Dup {
			if seen[r.Key] || !uuidV4.MatchString(r.Key) || r.Of != i {
				t.Fatalf("fresh request %d: key %q (seen before: %v)", i, r.Key, seen[r.Key])
			}
			if r.Amount < minAmount || r.Amount > maxAmount || r.Currency != Currency {
				t.Fatalf("fresh request %d: %d %s", i, r.Amount, r.Currency)
			}
			seen[r.Key] = true
			continue
		}
		orig := rs[r.Of]
		if r.Of >= i || orig.Dup || orig.Key != r.Key || orig.Account != r.Account || orig.Amount != r.Amount {
			t.Fatalf("duplicate %d of %d does not repeat its key and body: %+v vs %+v", i, r.Of, r, orig)
		}
		if fresh := freshBetween(rs, r.Of, i); fresh > 4 {
			t.Fatalf("duplicate %d retries request %d, %d fresh requests back (window 4)", i, r.Of, fresh)
		}
	}
}

func freshBetween(rs []Request, from, to int) int {
	n := 0
	for _, r := range rs[from:to] {
		if !r.Dup {
			n++
		}
	}
	return n
}

func TestSameSeedSameRequests(t *testing.T) {
	a := draw(Config{Seed: 11, DupRatio: 0.2}, 1000)
	b := draw(Config{Seed: 11, DupRatio: 0.2}, 1000)
	c := draw(Config{Seed: 12, DupRatio: 0.2}, 1000)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("request %d differs under the same seed", i)
		}
		same = same && a[i] == c[i]
	}
	if same {
		t.Fatal("another seed gave the same requests")
	}
}

func TestAccountsAreOpenedForEveryCharge(t *testing.T) {
	g := NewGen(Config{Seed: 1, Accounts: 5})
	open := map[string]bool{}
	for _, a := range g.Accounts() {
		open[a.ID] = a.Currency == Currency && a.Opening == Opening
	}
	for i := 0; i < 1000; i++ {
		if r := g.Next(i); !open[r.Account] {
			t.Fatalf("request %d charges %s, not opened", i, r.Account)
		}
	}
	if len(open) != 5 {
		t.Fatalf("%d accounts", len(open))
	}
}

func TestOpIsOneTry(t *testing.T) {
	op := Request{Index: 4, Key: "k", Account: "acct-1", Amount: 100, Currency: Currency}.Op()
	if op.ID != 4 || op.MaxTries != 1 || op.Group != -1 || op.After != -1 || len(op.Tries) != 1 {
		t.Fatalf("op %+v", op)
	}
	if err := (workloadPlan(op)).Validate(); err != nil {
		t.Fatal(err)
	}
}
