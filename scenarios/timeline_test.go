package scenarios

import (
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestTimelineCarriesTheInjectedFault: db-fault-mid-request plans
// pg-cut@before-commit on each op's first try; the timeline of a key names
// it on that attempt, at the moment the attempt reached before-commit, and
// leaves the retries, which carry no fault, alone.
func TestTimelineCarriesTheInjectedFault(t *testing.T) {
	c, plan, err := Prepare(Cell{Strategy: "redis-sticky", Scenario: "db-fault-mid-request", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	op := plan.Ops[0]
	first, retry := client.AttemptID(op.ID, 1), client.AttemptID(op.ID, 2)
	obs := Observation{
		History: history.History{Quiesced: 300 * time.Millisecond, ClaimTimeout: c.ClaimTTL, Attempts: []history.Attempt{
			{ID: first, Op: op.ID, Try: 1, Key: op.Key}, {ID: retry, Op: op.ID, Try: 2, Key: op.Key}}},
		Trace: []Event{
			{Seq: 1, Point: string(api.AfterClaim), Attempt: first, Key: op.Key, At: 3 * time.Millisecond},
			{Seq: 2, Point: string(api.BeforeCommit), Attempt: first, Key: op.Key, At: 9 * time.Millisecond},
			{Seq: 3, Point: string(api.BeforeCommit), Attempt: "other", Key: "another key", At: 10 * time.Millisecond},
		},
	}
	tls := timelines([]check.Finding{{Key: op.Key}}, obs, plan, nil)
	if len(tls) != 1 {
		t.Fatalf("%d timelines; want 1", len(tls))
	}
	tl := tls[0]
	want := Injected{Attempt: first, Inject: api.Injection{Action: api.PGCut, Point: api.BeforeCommit}, Reached: true, At: 9 * time.Millisecond}
	if len(tl.Injected) != 1 || tl.Injected[0] != want {
		t.Errorf("injected %+v; want [%+v]", tl.Injected, want)
	}
	if len(tl.Events) != 2 || tl.Held != nil {
		t.Errorf("events %+v, held %+v; want the key's 2 events and no hold", tl.Events, tl.Held)
	}
	if tl.ProbesFrom != 300*time.Millisecond+c.ClaimTTL {
		t.Errorf("probes from %s; want quiesced + claim timeout", tl.ProbesFrom)
	}
}

// TestTimelineCarriesTheGateHold: forced-race holds the first attempt of a
// key at after-check until another is answered (its client got the
// answer); a gate with a release point opens there.
func TestTimelineCarriesTheGateHold(t *testing.T) {
	sc, _ := Lookup("forced-race")
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	ev := func(seq int, p api.Point, attempt string, at int) Event {
		return Event{Seq: seq, Point: string(p), Attempt: attempt, Key: "k", At: ms(at)}
	}
	obs := Observation{Trace: []Event{ev(1, api.AfterCheck, "a", 2), ev(2, api.AfterCheck, "b", 4),
		ev(3, api.AfterCommit, "b", 20), ev(4, api.AfterCommit, "a", 25)}}
	obs.History.Attempts = []history.Attempt{{ID: "a", Key: "k", Call: ms(1), Return: ms(26)},
		{ID: "b", Key: "k", Call: ms(3), Return: ms(21)}}
	tl := timelines([]check.Finding{{Key: "k"}}, obs, workload.Plan{}, sc.Gate)[0]
	want := Held{Attempt: "a", Point: "after-check", By: "b", From: ms(2), To: ms(21)}
	if tl.Held == nil || *tl.Held != want {
		t.Fatalf("held %+v; want %+v", tl.Held, want)
	}
	atCommit := GateSpec{Hold: api.AfterCheck, Until: api.AfterCommit, Timeout: time.Second}
	tl = timelines([]check.Finding{{Key: "k"}}, obs, workload.Plan{}, &atCommit)[0]
	want = Held{Attempt: "a", Point: "after-check", Until: "after-commit", By: "b", From: ms(2), To: ms(20)}
	if tl.Held == nil || *tl.Held != want {
		t.Fatalf("held %+v; want %+v", tl.Held, want)
	}
	obs.History.Attempts[1].Return = ms(2000) // answered after the gate's timeout
	tl = timelines([]check.Finding{{Key: "k"}}, obs, workload.Plan{}, sc.Gate)[0]
	if tl.Held == nil || tl.Held.By != "" || tl.Held.To != ms(2)+sc.Gate.Timeout {
		t.Fatalf("held %+v; want a timeout", tl.Held)
	}
}

// TestTimelineOfALaterRetentionPeriod: a finding on "key#2" (the key used
// again after its TTL) gets the key's whole timeline.
func TestTimelineOfALaterRetentionPeriod(t *testing.T) {
	obs := Observation{History: history.History{Attempts: []history.Attempt{{ID: "a", Key: "k"}, {ID: "b", Key: "k"}, {ID: "c", Key: "k#x"}}}}
	tls := timelines([]check.Finding{{Key: "k#2"}, {Key: "k"}, {Key: "k#x"}}, obs, workload.Plan{}, nil)
	if len(tls) != 2 || tls[0].Key != "k" || len(tls[0].Attempts) != 2 || tls[1].Key != "k#x" || len(tls[1].Attempts) != 1 {
		t.Fatalf("timelines %+v; want k with its 2 attempts, then k#x (not a period's name)", tls)
	}
}
