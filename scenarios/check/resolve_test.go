package check

import (
	"testing"
	"time"
)

// TestResolveGivesEachAttemptItsOwn: Resolve allocates the copies of the
// server views and Applied flags together, yet no two attempts of its
// result share one.
func TestResolveGivesEachAttemptItsOwn(t *testing.T) {
	in := genInput(3_000, 2)
	got := Resolve(in.History, in.Ledger)
	flags := 0
	for i := range got.Attempts {
		a := &got.Attempts[i]
		a.Server.Start = time.Duration(i)
		if a.Applied != nil {
			*a.Applied = i%2 == 0
			flags++
		}
	}
	if flags == 0 {
		t.Fatal("the generated history should hold indeterminate attempts")
	}
	for i, a := range got.Attempts {
		if a.Server.Start != time.Duration(i) || a.Applied != nil && *a.Applied != (i%2 == 0) {
			t.Fatalf("attempt %d shares its server view or flag with another", i)
		}
	}
}
