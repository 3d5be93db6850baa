package engine

import (
	"context"
	"math"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// The percentile maths: latencies 1..1000 ms, counted from the intended
// send time, come out of the HDR histograms within its 3 significant figures.
func TestBenchPercentiles(t *testing.T) {
	var rep load.Report
	for i := 1; i <= 1000; i++ {
		due := time.Duration(i) * 10 * time.Millisecond
		s := load.Sample{Request: load.Request{Index: i - 1, Dup: i%10 == 0}, Intended: due,
			Sent: due + time.Duration(i-1)*time.Millisecond, Done: due + time.Duration(i)*time.Millisecond}
		s.Attempt = history.Attempt{Call: s.Sent, Return: s.Done, Status: 201, Outcome: history.Acked}
		switch {
		case i%10 == 0:
			s.Attempt.Status, s.Attempt.Replayed = 200, true
		case i%25 == 0:
			s.Attempt.Status, s.Attempt.Outcome = 409, history.Rejected
		}
		rep.Samples = append(rep.Samples, s)
	}
	r := Summarize(pgTx(t), load.Config{Rate: 100, Duration: 10 * time.Second}, rep, check.Report{}, 0)
	all := r.LatencyOf(results.KindAll)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", all.P50, 500}, {"p90", all.P90, 900}, {"p99", all.P99, 990}, {"p99.9", all.P999, 1000}, {"max", all.Max, 1000}} {
		if !nearMS(c.got, c.want) {
			t.Errorf("%s = %.3f ms, want %.0f ms", c.name, c.got, c.want)
		}
	}
	if all.Count != 1000 || r.LatencyOf(results.KindReplay).Count != 100 || r.LatencyOf(results.KindConflict).Count != 20 ||
		r.LatencyOf(results.KindFirst).Count != 880 || r.Duplicates != 100 {
		t.Fatalf("counts: %+v, %d duplicates", r.Latency, r.Duplicates)
	}
	if r.MaxQueuedMS != 999 || r.Statuses["201"] != 880 || r.Statuses["409"] != 20 {
		t.Fatalf("max queued %.3f ms, statuses %v", r.MaxQueuedMS, r.Statuses)
	}
	if r.AchievedRPS != round(1000/11.0, 1) {
		t.Fatalf("achieved %.1f/s: 1000 answers by 11s", r.AchievedRPS)
	}
}

// A stall, on fake time, all the way to the percentiles: a target that holds
// one request for 1s while the load keeps arriving at 100/s shows the queue
// in p90..max, as the exact latencies of the fake run say.
func TestBenchPercentilesShowAStall(t *testing.T) {
	var rep load.Report
	synctest.Test(t, func(t *testing.T) {
		clock := load.NewReal()
		slot := make(chan struct{}, 1) // the target handles one request at a time
		send := func(ctx context.Context, r load.Request) history.Attempt {
			slot <- struct{}{}
			defer func() { <-slot }()
			d := time.Millisecond
			if r.Index == 100 {
				d = time.Second
			}
			timer := time.NewTimer(d)
			<-timer.C
			return history.Attempt{Status: 201, Outcome: history.Acked}
		}
		var err error
		rep, err = load.Run(t.Context(), load.Config{Rate: 100, Duration: 10 * time.Second}, clock, send)
		if err != nil {
			t.Fatal(err)
		}
	})
	lat := make([]float64, len(rep.Samples))
	for i, s := range rep.Samples {
		lat[i] = float64(s.Latency()) / float64(time.Millisecond)
	}
	sort.Float64s(lat)
	r := Summarize(pgTx(t), load.Config{Rate: 100, Duration: 10 * time.Second}, rep, check.Report{}, 0)
	all := r.LatencyOf(results.KindAll)
	for _, c := range []struct {
		q   float64
		got float64
	}{{50, all.P50}, {90, all.P90}, {99, all.P99}, {99.9, all.P999}, {100, all.Max}} {
		want := lat[rank(c.q, len(lat))-1]
		if !nearMS(c.got, want) {
			t.Errorf("p%g = %.3f ms, want %.3f ms (exact)", c.q, c.got, want)
		}
	}
	if all.P50 > 2 || all.P99 < 500 || all.Max < 999 {
		t.Fatalf("the stall does not show: p50 %.2f, p99 %.2f, max %.2f ms", all.P50, all.P99, all.Max)
	}
}

// rank is the 1-based rank of percentile q among n sorted values, rounded to
// the nearest as the HDR histogram does.
func rank(q float64, n int) int { return min(max(int(q/100*float64(n)+0.5), 1), n) }

func nearMS(got, want float64) bool { return math.Abs(got-want) <= want*0.002+0.002 }

func pgTx(t *testing.T) design.Info {
	t.Helper()
	info, err := design.Lookup("pg-tx")
	if err != nil {
		t.Fatal(err)
	}
	return info
}
