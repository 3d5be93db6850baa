package narrate

import (
	"math/rand/v2"
	"testing"
)

// shuffled returns r with every list of the record and result in another
// order; the order of a list carries no meaning (trace events keep their
// sequence numbers, charges their ledger sequence).
func shuffled(r *record, rng *rand.Rand) *record {
	c := *r
	obs := &c.rec.Obs
	obs.History.Attempts = append(obs.History.Attempts[:0:0], obs.History.Attempts...)
	obs.Trace = append(obs.Trace[:0:0], obs.Trace...)
	obs.Ledger.Charges = append(obs.Ledger.Charges[:0:0], obs.Ledger.Charges...)
	obs.Ledger.Accounts = append(obs.Ledger.Accounts[:0:0], obs.Ledger.Accounts...)
	c.res.Findings = append(c.res.Findings[:0:0], c.res.Findings...)
	rng.Shuffle(len(obs.History.Attempts), func(i, j int) {
		obs.History.Attempts[i], obs.History.Attempts[j] = obs.History.Attempts[j], obs.History.Attempts[i]
	})
	rng.Shuffle(len(obs.Trace), func(i, j int) { obs.Trace[i], obs.Trace[j] = obs.Trace[j], obs.Trace[i] })
	rng.Shuffle(len(obs.Ledger.Charges), func(i, j int) {
		obs.Ledger.Charges[i], obs.Ledger.Charges[j] = obs.Ledger.Charges[j], obs.Ledger.Charges[i]
	})
	rng.Shuffle(len(obs.Ledger.Accounts), func(i, j int) {
		obs.Ledger.Accounts[i], obs.Ledger.Accounts[j] = obs.Ledger.Accounts[j], obs.Ledger.Accounts[i]
	})
	rng.Shuffle(len(c.res.Findings), func(i, j int) { c.res.Findings[i], c.res.Findings[j] = c.res.Findings[j], c.res.Findings[i] })
	return &c
}

func told(r *record) string {
	n := Story(r.rec, r.res)
	return n.Text() + n.Mermaid
}

// TestSameStoryWhateverTheTiming: runs of one cell differ in everything
// the data does not order causally: which of two barrier-released ops the
// gate held, the order the lists come in, the clock, the race between the
// releaser's store and the held request's debit, how many 409s a retry loop
// collected. The story must not.
func TestSameStoryWhateverTheTiming(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := map[string][]*record{
		"double charge": {doubleCharge(raceOptions{}), doubleCharge(raceOptions{swap: true}),
			doubleCharge(raceOptions{lateStore: true}), doubleCharge(raceOptions{swap: true, lateStore: true, shift: 17.3})},
		"409 then replay": {heldKey(heldOptions{conflicts: 4, first: 33, retry: 479.4}), heldKey(heldOptions{conflicts: 1, first: 145, retry: 462.2}), heldKey(heldOptions{conflicts: 6, swap: true, first: 160, retry: 455}), heldKey(heldOptions{conflicts: 2, swap: true, first: 150, retry: 500})},
		"stuck key":       {poisoned()},
	}
	for name, variants := range cases {
		want := told(variants[0])
		for i, v := range variants {
			for k := 0; k < 20; k++ {
				if got := told(shuffled(v, rng)); got != want {
					t.Fatalf("%s: variant %d, shuffle %d tells another story:\n%s\nwant:\n%s", name, i, k, got, want)
				}
			}
		}
	}
}

func TestTimingsTellTheVariants(t *testing.T) {
	a := Story(heldKey(heldOptions{conflicts: 4, first: 33, retry: 479.4}).rec, heldKey(heldOptions{conflicts: 4, first: 33, retry: 479.4}).res)
	b := Story(heldKey(heldOptions{conflicts: 2, swap: true, first: 150, retry: 500}).rec, heldKey(heldOptions{conflicts: 2, swap: true, first: 150, retry: 500}).res)
	if a.Text() != b.Text() {
		t.Fatal("stories differ")
	}
	if a.Timings[1] == b.Timings[1] {
		t.Errorf("timings hide the difference: %q", a.Timings[1])
	}
}
