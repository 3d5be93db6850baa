package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

func TestParseTold(t *testing.T) {
	ops := []history.Operation{{ID: "op-01"}}
	for _, c := range []struct {
		line    string
		ok, bad bool
		want    history.Told
	}{
		{"op-01 succeeded ch_1", true, false, history.Told{Op: "op-01", Outcome: history.Succeeded, Detail: "ch_1"}},
		{"  op-01 failed network error, retry?", true, false, history.Told{Op: "op-01", Outcome: history.Failed, Detail: "network error, retry?"}},
		{"retrying op-01 in 250ms", false, false, history.Told{}},
		{"op-01 maybe", true, true, history.Told{Op: "op-01", Outcome: "maybe"}},
		{"op-01", true, true, history.Told{Op: "op-01"}},
	} {
		got, ok, err := scenarios.ParseTold(c.line, ops, time.Second)
		if ok != c.ok || (err != nil) != c.bad || (ok && (got.Op != c.want.Op || got.Outcome != c.want.Outcome || got.Detail != c.want.Detail)) {
			t.Errorf("%q: %+v %v %v", c.line, got, ok, err)
		}
	}
}

// clientRecord is a run in which the client made and reported every
// operation, every fault met.
func clientRecord() scenarios.ClientRecord {
	plan := workload.ClientPlan{Seed: 1}
	rec := scenarios.ClientRecord{Name: "c.mjs", Shape: "json", Profile: api.OptionalKey}
	for i, f := range workload.FrontFaults {
		op := workload.ClientOp{ID: "op-" + string(rune('a'+i)), Account: "acct-" + string(rune('a'+i)), Amount: 100, Currency: "usd",
			Faults: []workload.FrontFault{f}}
		plan.Ops = append(plan.Ops, op)
		rec.Run.Received = append(rec.Run.Received,
			history.Received{ID: "c" + op.ID, Op: op.ID, Try: 1, Key: "k" + op.ID, Fault: string(f)},
			history.Received{ID: "d" + op.ID, Op: op.ID, Try: 2, Key: "k" + op.ID, Arrived: 2 * time.Second, Status: 201})
		rec.Run.Told = append(rec.Run.Told, history.Told{Op: op.ID, Outcome: history.Succeeded})
		rec.Run.Charges = append(rec.Run.Charges, history.Charge{ID: "ch" + op.ID, Account: op.Account, Amount: 100})
	}
	rec.Plan = plan
	rec.Run.Ops = scenarios.Operations(plan)
	return rec
}

// hungUp gives each refusal a Retry-After and a connection the client
// closed before its retry came early on a new one (it gave up on the
// answer); but for every, the last refusal's retry waits its Retry-After.
func hungUp(rs []history.Received, every bool) {
	var last int
	for i, r := range rs {
		if r.Fault == string(workload.RateLimited) || r.Fault == string(workload.Unavailable) {
			rs[i].Status, rs[i].RetryAfter, rs[i].Conn, rs[i].ConnClosed = 503, 1, "127.0.0.1:"+r.ID, 100*time.Millisecond
			rs[i+1].Conn, rs[i+1].Arrived, last = "127.0.0.1:new"+r.ID, 500*time.Millisecond, i
		}
	}
	if !every {
		rs[last+1].Arrived = 2 * time.Second
	}
}

func TestJudgeClientPassesOnlyWhatItExercised(t *testing.T) {
	if r := scenarios.JudgeClient(clientRecord()); r.Verdict != scenarios.Pass || !r.Exercised || r.Faults != len(workload.FrontFaults) ||
		r.FaultsMet == nil || *r.FaultsMet != r.Faults {
		t.Fatalf("a client that kept its half, every fault met: %s %v", r.Verdict, r.Assumptions)
	}
	cases := map[string]func(*scenarios.ClientRecord){
		"sent no request for op-a":            func(r *scenarios.ClientRecord) { r.Run.Received = r.Run.Received[2:] },
		"printed no outcome for op-b":         func(r *scenarios.ClientRecord) { r.Run.Told = append(r.Run.Told[:1], r.Run.Told[2:]...) },
		"met the faults slow-answer":          func(r *scenarios.ClientRecord) { r.Run.Received[len(r.Run.Received)-2].Fault = "" },
		`unreadable outcome "op-a ok"`:        func(r *scenarios.ClientRecord) { r.Unread = []string{`"op-a ok"`} },
		"no Retry-After was known to be read": func(r *scenarios.ClientRecord) { hungUp(r.Run.Received, true) },
	}
	for want, change := range cases {
		rec := clientRecord()
		change(&rec)
		r := scenarios.JudgeClient(rec)
		if r.Verdict != scenarios.Inconclusive || !strings.Contains(strings.Join(r.Assumptions, "; "), want) {
			t.Errorf("%s: %s %v", want, r.Verdict, r.Assumptions)
		}
	}
	rec := clientRecord()
	hungUp(rec.Run.Received, false)
	if r := scenarios.JudgeClient(rec); r.Verdict != scenarios.Pass {
		t.Errorf("one Retry-After waited for, one not known to be read: %s %v", r.Verdict, r.Assumptions)
	}
	rec = clientRecord()
	hungUp(rec.Run.Received, true)
	for i := range rec.Run.Received {
		if rec.Run.Received[i].RetryAfter > 0 {
			rec.Run.Received[i+1].Conn = rec.Run.Received[i].Conn // read: the retry came on its connection
		}
	}
	if r := scenarios.JudgeClient(rec); r.Verdict != scenarios.Fail || len(r.Assumptions) > 0 {
		t.Errorf("Retry-Afters read and not kept: %s %v", r.Verdict, r.Assumptions)
	}
	rec = clientRecord()
	rec.Run.Told[0].Outcome = history.Failed
	rec.Unread = []string{"x"}
	if r := scenarios.JudgeClient(rec); r.Verdict != scenarios.Fail {
		t.Errorf("an anomaly fails the run whatever else kept it from proving: %s", r.Verdict)
	}
}
