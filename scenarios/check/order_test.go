package check

import (
	"slices"
	"testing"
)

// TestFindingsByKeyWhateverTheInputNamesFirst: the checker judges keys in
// the order the input first names them, yet each anomaly's findings and
// the deviations come ordered by key, as judging them in sorted order
// gives: here the input names keyC, then keyB, then keyA.
func TestFindingsByKeyWhateverTheInputNamesFirst(t *testing.T) {
	l := ledger(ch("ch_3", keyC, "a6-1", 500, 1), ch("ch_2", keyB, "a4-1", 500, 2), ch("ch_1", keyA, "a2-1", 500, 3))
	in := input(forgetful, l,
		att(5, 1, keyC, 500, 0, declined(declinedBody)),
		att(6, 1, keyC, 500, 100, acked(201, "ch_3", "B3")),
		att(3, 1, keyB, 500, 200, declined(declinedBody)),
		att(4, 1, keyB, 500, 300, acked(201, "ch_2", "B2")),
		att(1, 1, keyA, 500, 400, declined(declinedBody)),
		att(2, 1, keyA, 500, 500, acked(201, "ch_1", "B1")),
	)
	r := Run(in)
	keys := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Key)
		}
		return out
	}
	dev := keys(r.Deviations)
	if len(dev) < 3 || !slices.IsSorted(dev) || dev[0] != keyA || dev[len(dev)-1] != keyC {
		t.Fatalf("deviations by key %v, want keyA's first and keyC's last", dev)
	}
	in.Profile.RedecideRefusals = false
	r = Run(in)
	found := keys(r.Findings)
	if len(found) < 3 || !slices.IsSorted(found) || found[0] != keyA || found[len(found)-1] != keyC {
		t.Fatalf("findings by key %v, want keyA's first and keyC's last", found)
	}
}
