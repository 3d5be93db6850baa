package engine

import (
	"context"
	"testing"

	"github.com/idemchaos/idemchaos/sim/history"
)

type allRows []history.Charge

func (a allRows) Charges(context.Context, []string) ([]history.Charge, error) { return a, nil }

// TestReadChargesKeepsWhatWasAskedFor: a ledger that gives back more than
// the run's keys (its measuring charges, another run's rows) is read as if
// it had filtered: rows under the keys, keyless rows by the run's attempts.
func TestReadChargesKeepsWhatWasAskedFor(t *testing.T) {
	l := allRows{{Key: "k1", Account: "a", Amount: 1}, {Key: "calibrate", Account: "a", Amount: 1},
		{Key: "", AttemptID: "o3-t1", Amount: 2}, {Key: "", AttemptID: "other-run", Amount: 3}, {Key: "k2", ID: "c9", Amount: 4}}
	got, err := readCharges(t.Context(), l, lookup{keys: []string{"k1", "k2"}, keyless: []string{"o3-t1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []history.Charge{{ID: "row-1", Key: "k1", Account: "a", Amount: 1, Seq: 1}, {ID: "row-2", AttemptID: "o3-t1", Amount: 2, Seq: 2},
		{ID: "c9", Key: "k2", Amount: 4, Seq: 3}}
	if len(got) != len(want) {
		t.Fatalf("read %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v; want %+v", i, got[i], want[i])
		}
	}
}

// TestEarlierKeylessRowsLeftOut: keyless rows read before a run are an
// earlier run's (attempt ids repeat); the rows after the run lose one of
// each, matched by charge id where the ledger names them.
func TestEarlierKeylessRowsLeftOut(t *testing.T) {
	before := []history.Charge{{Key: "k1", Amount: 1, ID: "row-1"}, {AttemptID: "o5-t1", Amount: 2, ID: "row-2"}}
	keyed, earlier := splitKeyless(before)
	if len(keyed) != 1 || len(earlier) != 1 {
		t.Fatalf("split %v / %v", keyed, earlier)
	}
	after := []history.Charge{{Key: "k1", Amount: 1, ID: "row-1"}, {AttemptID: "o5-t1", Amount: 2, ID: "row-3"}, {AttemptID: "o5-t1", Amount: 2, ID: "row-4"}}
	if got := withoutRows(after, earlier, false); len(got) != 2 || got[1].ID != "row-4" {
		t.Errorf("without ids: %+v; want k1 and one o5-t1 row", got)
	}
	if got := withoutRows(after, earlier, true); len(got) != 3 {
		t.Errorf("by id: %+v; want all three (row-2 is gone)", got)
	}
}
