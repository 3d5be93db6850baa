package reports_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
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
	l := reports.NewLatencies()
	l.Add("pg-tx", atts)
	got := map[string]reports.Latency{}
	for _, s := range l.Summary() {
		got[s.Kind] = s
	}
	all := got[reports.KindAll]
	if all.Count != 1001 || !near(all.P50, 500) || !near(all.P99, 990) || !near(all.Max, 1000) {
		t.Fatalf("all: %+v", all)
	}
	if got[reports.KindReplay].Count != 100 || got[reports.KindFirst].Count != 900 || got[reports.KindConflict].Count != 1 {
		t.Fatalf("kinds: %+v", got)
	}
}

func near(got, want float64) bool { return math.Abs(got-want) <= want*0.01+0.01 }

func TestHTMLShowsLatencyPerStrategy(t *testing.T) {
	l := reports.NewLatencies()
	l.Add("pg-tx", []history.Attempt{{Return: 3 * time.Millisecond, Status: 201}})
	l.Add("redis-pg-guard", []history.Attempt{{Return: 6 * time.Millisecond, Status: 409}})
	var b strings.Builder
	if err := reports.WriteHTML(&b, reports.Document{Latency: l.Summary()}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`id="latency"`, "<th scope=\"row\">pg-tx</th><td>first</td>", "<th scope=\"row\">redis-pg-guard</th><td>conflict</td>", `class="p99" style="width: 100.0%"`} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
