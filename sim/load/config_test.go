package load

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestValidateBounds(t *testing.T) {
	ok := Config{Rate: 200, Duration: 10 * time.Second, DupRatio: 0.1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	bad := map[string]Config{
		"both models":      {Rate: 10, Workers: 2, Duration: time.Second},
		"neither":          {Duration: time.Second},
		"negative rate":    {Rate: -1, Duration: time.Second},
		"NaN rate":         {Rate: math.NaN(), Duration: time.Second},
		"rate too high":    {Rate: MaxRate + 1, Duration: time.Second},
		"too many workers": {Workers: MaxWorkers + 1, Duration: time.Second},
		"zero duration":    {Rate: 10},
		"long duration":    {Rate: 10, Duration: MaxDuration + time.Second},
		"count too high":   {Rate: 10, Duration: time.Second, Count: MaxCount + 1},
		"negative count":   {Rate: 10, Duration: time.Second, Count: -1},
		"dup ratio > 1":    {Rate: 10, Duration: time.Second, DupRatio: 1.5},
		"dup ratio < 0":    {Rate: 10, Duration: time.Second, DupRatio: -0.1},
		"dup ratio NaN":    {Rate: 10, Duration: time.Second, DupRatio: math.NaN()},
		"in flight":        {Rate: 10, Duration: time.Second, Inflight: MaxInflight + 1},
	}
	for name, c := range bad {
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: message is not one line: %q", name, err)
		}
	}
	if ok.Model() != Open || (Config{Workers: 3}).Model() != Closed {
		t.Fatal("model names")
	}
}

func TestIntendedNeverDrifts(t *testing.T) {
	// 1/3 s is not a whole number of nanoseconds: the schedule is computed
	// from i, not by adding a rounded period, so it never drifts.
	if got := Intended(3_000_000, 3); got != 1_000_000*time.Second {
		t.Fatalf("request 3e6 at 3/s due at %s, want 1e6 s", got)
	}
	if got := Intended(1, 3); got != 333333333 {
		t.Fatalf("request 1 at 3/s due at %d ns", got)
	}
	if got := Intended(2, 3); got != 666666667 {
		t.Fatalf("request 2 at 3/s due at %d ns", got)
	}
}
