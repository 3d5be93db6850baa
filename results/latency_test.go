package results_test

import (
	"math"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/sim/history"
)

func TestLatencyPercentiles(t *testing.T) {
	var atts []history.Attempt
	for i := 1; i <= 1000; i++ { // 1ms .. 1000ms, one each
		a := history.Attempt{Call: 0, Return: time.Duration(i) * time.Millisecond, Status: 201}
		if i%10 == 0 {
			a.Status, a.Replayed = 201, true
		}
		atts = append(atts, a)
	}
	atts = append(atts, history.Attempt{Return: time.Second, Status: 409}, history.Attempt{Return: time.Hour}) // no answer: skipped
	l := results.NewLatencies()
	l.Add("pg-tx", atts)
	got := map[string]results.Latency{}
	for _, s := range l.Summary() {
		got[s.Kind] = s
	}
	all := got[results.KindAll]
	if all.Count != 1001 || !near(all.P50, 500) || !near(all.P99, 990) || !near(all.Max, 1000) {
		t.Fatalf("all: %+v", all)
	}
	if got[results.KindReplay].Count != 100 || got[results.KindFirst].Count != 900 || got[results.KindConflict].Count != 1 {
		t.Fatalf("kinds: %+v", got)
	}
}

func near(got, want float64) bool { return math.Abs(got-want) <= want*0.01+0.01 }
