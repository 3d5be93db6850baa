package reports_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// faultTimeline is one key through every fault a timeline draws, on a
// span of 0..68 ms: a1's answer dropped (its Postgres link cut at 8 ms
// before it committed ch-1 at 12 ms), a2 on replica 2 delayed at
// after-claim, committing ch-2 at 30 ms, then its Redis link cut at 40 ms;
// a3 (another amount) held by the gate from 27 ms until a2 committed,
// its planned latency never reached; a4 a probe, a5 a replay probe.
func faultTimeline() scenarios.Timeline {
	try := func(n int, id string, amount int64, call, ret float64, status, replica int, outcome history.Outcome, charge string, from, to float64) history.Attempt {
		return history.Attempt{Op: 0, Try: n, ID: id, Key: "k-9", Account: "acc-1", Amount: amount, Replica: replica, Call: ms(call),
			Return: ms(ret), Status: status, Outcome: outcome, ChargeID: charge,
			Server: &history.ServerView{Replica: replica, Start: ms(from), End: ms(to), Status: status, ChargeID: charge}}
	}
	a1 := try(1, "a1", 1250, 0, 20, 0, 1, history.Indeterminate, "", 1, 12)
	a1.Fault, a1.Err, a1.Server.Status, a1.Server.ChargeID = "drop-response", `timeout: Post "http://127.0.0.1:1/v1/charges": context deadline exceeded`, 201, "ch-1"
	a4 := try(4, "a4", 1250, 62, 64, 201, 1, history.Acked, "ch-2", 62.5, 63)
	a5 := try(5, "a5", 1250, 66, 68, 201, 1, history.Acked, "ch-2", 66.5, 67)
	a5.ReplayProbe = true
	ev := func(point, attempt string, at float64) scenarios.Event {
		return scenarios.Event{Point: point, Attempt: attempt, Key: "k-9", At: ms(at)}
	}
	return scenarios.Timeline{Key: "k-9", ProbesFrom: ms(60),
		Attempts: []history.Attempt{a1, try(2, "a2", 1250, 22, 50, 201, 2, history.Acked, "ch-2", 23, 48),
			try(3, "a3", 990, 25, 32, 409, 1, history.Rejected, "", 26, 31), a4, a5},
		Charges: []history.Charge{{ID: "ch-2", Account: "acc-1", Amount: 1250, Key: "k-9", AttemptID: "a2", Seq: 2},
			{ID: "ch-1", Account: "acc-1", Amount: 1250, Key: "k-9", AttemptID: "a1", Seq: 1}},
		Injected: []scenarios.Injected{
			{Attempt: "a1", Inject: api.Injection{Action: api.PGCut, Point: api.BeforeCommit}, Reached: true, At: ms(8)},
			{Attempt: "a2", Inject: api.Injection{Action: api.Delay, Arg: ms(10), Point: api.AfterClaim}, Reached: true, At: ms(24)},
			{Attempt: "a2", Inject: api.Injection{Action: api.RedisCut, Point: api.AfterCommit}, Reached: true, At: ms(40)},
			{Attempt: "a3", Inject: api.Injection{Action: api.PGLatency, Arg: ms(5), Point: api.BeforeCommit}},
		},
		Events: []scenarios.Event{ev("before-commit", "a1", 8), ev("after-claim", "a2", 24), ev("after-check", "a3", 27),
			ev("after-commit", "a2", 30), ev("after-commit", "a2", 40)},
		Held: &scenarios.Held{Attempt: "a3", Point: "after-check", Until: "after-commit", By: "a2", From: ms(27), To: ms(30)},
	}
}

// lanesOf splits a page's first timeline into its lanes, by name.
func lanesOf(t *testing.T, page string) map[string]string {
	t.Helper()
	fig := page[strings.Index(page, `<figure class="tl"`):]
	fig = fig[:strings.Index(fig, "</figure>")]
	lanes := map[string]string{}
	for _, part := range strings.Split(fig, `<div class="ln">`)[1:] {
		name := part[len(`<div class="lnn">`):strings.Index(part, "<small>")]
		lanes[name] = part
	}
	return lanes
}

// row finds the row of a lane whose words contain what, and its bar.
func row(lane, what string) (words, bar string, ok bool) {
	for _, r := range strings.Split(lane, `<div class="r">`)[1:] {
		w := strings.Join(strings.Fields(visibleText(r[:strings.Index(r, `<div class="tr">`)])), " ")
		if strings.Contains(w, what) {
			return w, r[strings.Index(r, `<div class="tr">`):], true
		}
	}
	return "", "", false
}

func timelinePage(t *testing.T, tl scenarios.Timeline) string {
	t.Helper()
	r := res("redis-setnx", "redis-fault-after-commit", 1, scenarios.Fail, true, "double_charge")
	r.Anomalies, r.Timelines = anoms("double_charge", 1), []scenarios.Timeline{tl}
	return page(t, results.Document{Results: []scenarios.Result{r}})
}

// TestTimelineDrawsEveryFaultWhereItHappened: the drop on the network,
// the cuts and latency on their store's lane from the moment the attempt
// reached the fault's point, the delay and the gate's hold on the replica
// that ran the attempt, the probes marked.
func TestTimelineDrawsEveryFaultWhereItHappened(t *testing.T) {
	lanes := lanesOf(t, timelinePage(t, faultTimeline()))
	for _, c := range []struct{ lane, what, bar string }{
		{"network", "a1 drop-response: routed through the proxy that drops the answer", `class="b f-drop" style="left:0.00%;width:29.41%"`},
		{"Postgres", "a1 the link to Postgres cut at before-commit, healed when the request ended", `class="b f-cut" style="left:11.76%;width:5.88%"`},
		{"Redis", "a2 the link to Redis cut at after-commit", `class="b f-cut" style="left:58.82%;width:11.76%"`},
		{"replica 2", "a2 a delay of 10ms injected at after-claim: the handler waits", `class="b f-slow" style="left:35.29%;width:14.71%"`},
		{"replica 1", "a3 held by the gate at after-check until a2 reached after-commit (3.0 ms)", `class="b f-hold" style="left:39.71%;width:4.41%"`},
		{"Postgres", "a3 pg-latency:5ms@before-commit was planned on this try, which never reached before-commit", ""},
	} {
		words, bar, ok := row(lanes[c.lane], c.what)
		switch {
		case !ok:
			t.Errorf("lane %s has no row %q:\n%s", c.lane, c.what, visibleText(lanes[c.lane]))
		case c.bar != "" && !strings.Contains(bar, c.bar):
			t.Errorf("lane %s, %q: bar %s; want %s", c.lane, words, bar, c.bar)
		case c.bar == "" && strings.Contains(bar, "<i"):
			t.Errorf("lane %s, %q: a fault never fired is drawn: %s", c.lane, words, bar)
		}
	}
	if _, _, ok := row(lanes["replica 1"], "a3 handled → 409"); !ok {
		t.Error("the held attempt's own row is missing")
	}
	answered := faultTimeline()
	answered.Held.Until = "" // forced-race's gate: opened by a2's answer
	want := "a3 held by the gate at after-check until a2 was answered (3.0 ms)"
	if _, _, ok := row(lanesOf(t, timelinePage(t, answered))["replica 1"], want); !ok {
		t.Errorf("no row %q", want)
	}
	if !regexp.MustCompile(`<div class="pl left" style="--x:0.8824">`).MatchString(lanes["Redis"]) {
		t.Error("no line where the probes begin, at 60 ms of 0..68")
	}
}

// TestTimelineShowsEachTrysPayload: every client row writes the amount its
// try sent, and marks the probes.
func TestTimelineShowsEachTrysPayload(t *testing.T) {
	client := lanesOf(t, timelinePage(t, faultTimeline()))["client"]
	for _, want := range []string{"a1 12.50 EUR try 1 → timeout", "a2 12.50 EUR try 2 → 201 · ch-2", "a3 9.90 EUR try 3 → 409",
		"a4 12.50 EUR try 4 → 201 · ch-2 probe", "a5 12.50 EUR try 5 → 201 · ch-2 replay probe"} {
		if _, _, ok := row(client, want); !ok {
			t.Errorf("no client row %q:\n%s", want, visibleText(client))
		}
	}
	if n := strings.Count(client, `<span class="pay">`); n != 5 {
		t.Errorf("%d payloads written on 5 client rows", n)
	}
}

// TestTimelineDrawsTheFirstChargeAsTheLegitimateOne: by commit order, the
// first charge is the key's, the next an extra one; each sits where its
// attempt committed (after-commit, else the end of its handler).
func TestTimelineDrawsTheFirstChargeAsTheLegitimateOne(t *testing.T) {
	pg := lanesOf(t, timelinePage(t, faultTimeline()))["Postgres"]
	for what, bar := range map[string]string{
		"ch-1 12.50 EUR the charge, by a1 (commit #1)":                            `<i class="p ch" style="left:17.65%">`,
		"ch-2 12.50 EUR an extra charge for the key (its 2nd), by a2 (commit #2)": `<i class="p ch2" style="left:44.12%">`,
	} {
		if _, got, ok := row(pg, what); !ok || !strings.Contains(got, bar) {
			t.Errorf("Postgres row %q: %q; want %s", what, got, bar)
		}
	}
}

// TestTimelineOfATargetWithoutFailpoints: a fault placed from outside
// (the target traces no failpoint) covers its whole request.
func TestTimelineOfATargetWithoutFailpoints(t *testing.T) {
	tl := faultTimeline()
	tl.Events, tl.Held = nil, nil
	tl.Injected = []scenarios.Injected{{Attempt: "a2", Inject: api.Injection{Action: api.PGCut, Point: api.BeforeCommit}}}
	words, bar, ok := row(lanesOf(t, timelinePage(t, tl))["Postgres"], "a2 pg-cut@before-commit placed on the whole request")
	if !ok || !strings.Contains(bar, `class="b f-cut" style="left:32.35%;width:41.18%"`) {
		t.Errorf("row %q, bar %s; want the cut over a2's 22..50 ms", words, bar)
	}
}

// TestHTMLStructure counts the parts of the fixture's page.
func TestHTMLStructure(t *testing.T) {
	out := page(t, fixture())
	if n := strings.Count(out, `<tr><th scope="row">`); n != 3 {
		t.Errorf("matrix has %d strategy rows; want 3", n)
	}
	if n := strings.Count(out, `<figure class="tl"`); n != 2 {
		t.Errorf("%d timelines; want 2, one per timeline", n)
	}
	if n := strings.Count(out, `<section class="cell `); n != 5 {
		t.Errorf("%d evidence sections; want 5, one per cell that did not pass", n)
	}
	lanes := lanesOf(t, out[strings.Index(out, `id="redis-setnx/redis-fault-after-commit/seed-1/key-k-7"`)-30:])
	for _, name := range []string{"client", "network", "replica 1", "replica 2", "Postgres", "Redis"} {
		if lanes[name] == "" {
			t.Errorf("the desync timeline has no %s lane", name)
		}
	}
	if _, _, ok := row(lanes["Redis"], "record after the run: done · 201 · ch-8 · TTL 24h"); !ok {
		t.Errorf("no Redis record row:\n%s", visibleText(lanes["Redis"]))
	}
	if none := lanesOf(t, out); none["client"] == "" || none["Redis"] != "" {
		t.Error("the timeline of strategy none, which keeps nothing in Redis, has a Redis lane (or no client lane)")
	}
}
