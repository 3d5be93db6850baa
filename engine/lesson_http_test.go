package engine_test

import (
	"context"
	"testing"
)

// TestHTTPResendLessonEveryRun, both directions, on every run: the
// connection closed after the work makes Go's Transport write the keyed
// POST twice for one Do; the server logs it twice and the merge marks one
// hidden re-send; without a key layer it is charged twice, pg-tx replays it.
func TestHTTPResendLessonEveryRun(t *testing.T) {
	r := newRunner(t)
	for run := 1; run <= 5; run++ {
		for _, c := range []struct {
			strategy string
			charges  int
			replayed bool
		}{{"none", 2, false}, {"pg-tx", 1, true}} {
			got, err := r.HTTPResendLesson(context.Background(), c.strategy)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Reused || got.Writes != 2 || got.ServerSaw != 2 || got.Hidden != 1 || got.Status != 201 ||
				got.Charges != c.charges || got.Replayed != c.replayed {
				t.Errorf("run %d, %s: %+v; want 2 writes, 2 server entries, 1 hidden, 201, %d charges, replayed %v",
					run, c.strategy, got, c.charges, c.replayed)
			}
		}
	}
}
