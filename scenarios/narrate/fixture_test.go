package narrate

import (
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Keys of the crafted records.
const (
	raceKey  = "aef7c1aa-f218-41d4-89a4-e1060e5f49aa"
	stuckKey = "b627f945-9714-45a1-94c1-389c4c91ee62"
)

func ms2(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// record is a crafted cell under construction.
type record struct {
	rec scenarios.Record
	res scenarios.Result
}

func newRecord(strategy, scenario string, ops ...workload.Op) *record {
	r := &record{}
	r.rec.Cell = scenarios.Cell{Strategy: strategy, Scenario: scenario, Seed: 1, Profile: api.IETF, Replicas: 1}
	for i := 1; i <= 4; i++ {
		id := "acct-" + string(rune('0'+i))
		r.rec.Plan.Accounts = append(r.rec.Plan.Accounts, workload.Account{ID: id, Currency: "EUR", Opening: 1_000_000})
		r.rec.Obs.Ledger.Accounts = append(r.rec.Obs.Ledger.Accounts, history.Account{ID: id, Opening: 1_000_000, Balance: 1_000_000})
	}
	r.rec.Plan.Ops = ops
	r.res = scenarios.Result{Strategy: strategy, Scenario: scenario, Seed: 1, Profile: "ietf", Verdict: scenarios.Pass}
	return r
}

func op(id int, key string, tries int, after int) workload.Op {
	o := workload.Op{ID: id, Key: key, Account: "acct-1", Amount: 1800, Currency: "EUR", Group: -1, After: after, MaxTries: tries}
	for i := 0; i < tries; i++ {
		o.Tries = append(o.Tries, workload.Try{})
	}
	return o
}

// try adds an attempt; the server saw it from start to end with status.
func (r *record) try(opID, try int, key string, call, start, end, ret float64, status int, chargeID string, replayed bool) *history.Attempt {
	a := history.Attempt{Op: opID, Try: try, ID: "o" + itoa(opID) + "-t" + itoa(try), Key: key, Account: "acct-1", Amount: 1800,
		Call: ms2(call), Return: ms2(ret), Status: status, ChargeID: chargeID,
		Server: &history.ServerView{Start: ms2(start), End: ms2(end), Status: status, ChargeID: chargeID, Replayed: replayed}}
	switch {
	case status >= 200 && status < 300:
		a.Outcome = history.Acked
	case status >= 500:
		a.Outcome = history.Indeterminate
	default:
		a.Outcome = history.Rejected
	}
	r.rec.Obs.History.Attempts = append(r.rec.Obs.History.Attempts, a)
	return &r.rec.Obs.History.Attempts[len(r.rec.Obs.History.Attempts)-1]
}

// at adds a trace event; seq follows the order of the calls.
func (r *record) at(point, attempt, key string, at float64) {
	r.rec.Obs.Trace = append(r.rec.Obs.Trace, scenarios.Event{Seq: len(r.rec.Obs.Trace) + 1, Point: point, Attempt: attempt,
		Key: key, At: ms2(at)})
}

func (r *record) charge(id, key, attempt string, seq int64) {
	r.rec.Obs.Ledger.Charges = append(r.rec.Obs.Ledger.Charges, history.Charge{ID: id, Account: "acct-1", Amount: 1800,
		Key: key, AttemptID: attempt, Seq: seq})
	r.rec.Obs.Ledger.Accounts[0].Balance -= 1800
}

func (r *record) finding(anomaly check.Anomaly, key string, attempts ...string) {
	r.res.Findings = append(r.res.Findings, check.Finding{Anomaly: anomaly, Key: key, Account: "acct-1", Attempts: attempts})
	if r.res.Anomalies == nil {
		r.res.Anomalies = map[check.Anomaly]int{}
	}
	r.res.Anomalies[anomaly]++
	r.res.Verdict = scenarios.Fail
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}

// raceOptions vary what a forced race does without changing its causal
// structure.
type raceOptions struct {
	swap      bool // op 1, not op 0, is the request the gate holds
	lateStore bool // after the release, B stores its response after A's debit began
	shift     float64
}

// unforcedRace is redis-getset under forced-race on a machine slower than
// the gate: its timeout runs out while B is still on its way to its commit,
// so A charges first.
func unforcedRace() *record {
	r := newRecord("redis-getset", "forced-race", op(0, raceKey, 8, -1), op(1, raceKey, 8, -1))
	r.at("after-check", "o0-t1", raceKey, 38)
	r.at("after-check", "o1-t1", raceKey, 40)
	r.at("before-commit", "o1-t1", raceKey, 300)
	r.at("before-commit", "o0-t1", raceKey, 340)
	r.at("after-commit", "o0-t1", raceKey, 341)
	r.at("before-store-response", "o0-t1", raceKey, 342)
	r.at("after-commit", "o1-t1", raceKey, 350)
	r.at("before-store-response", "o1-t1", raceKey, 351)
	r.try(0, 1, raceKey, 7.7, 25, 343, 344, 201, "ch_3", false)
	r.try(1, 1, raceKey, 7.8, 26, 352, 353, 201, "ch_4", false)
	r.charge("ch_3", raceKey, "o0-t1", 3)
	r.charge("ch_4", raceKey, "o1-t1", 4)
	r.rec.Obs.Ledger.Redis = []history.RedisRecord{{Key: raceKey, Done: true, Status: 201, ChargeID: "ch_4"}}
	r.finding(check.DoubleCharge, raceKey, "o0-t1", "o1-t1")
	return r
}

// doubleCharge is redis-getset under forced-race: the gate holds A after
// its GET, B charges and commits, the gate opens, A charges again.
func doubleCharge(o raceOptions) *record {
	r := newRecord("redis-getset", "forced-race", op(0, raceKey, 8, -1), op(1, raceKey, 8, -1))
	r.rec.Plan.Ops[0].Group, r.rec.Plan.Ops[1].Group = 0, 0
	a, b := 0, 1
	if o.swap {
		a, b = 1, 0
	}
	s := o.shift
	ida, idb := "o"+itoa(a)+"-t1", "o"+itoa(b)+"-t1"
	r.at("after-check", ida, raceKey, 38+s)
	r.at("after-check", idb, raceKey, 38.9+s)
	r.at("before-commit", idb, raceKey, 184+s)
	r.at("after-commit", idb, raceKey, 188.7+s)
	if !o.lateStore {
		r.at("before-store-response", idb, raceKey, 188.71+s)
	}
	r.at("before-commit", ida, raceKey, 195.7+s)
	if o.lateStore {
		r.at("before-store-response", idb, raceKey, 195.8+s)
	}
	r.at("after-commit", ida, raceKey, 195.9+s)
	r.at("before-store-response", ida, raceKey, 195.93+s)
	r.try(b, 1, raceKey, 7.8+s, 14+s, 189.4+s, 189.9+s, 201, "ch_7", false)
	r.try(a, 1, raceKey, 7.7+s, 25+s, 196.7+s, 197.2+s, 201, "ch_9", false)
	r.charge("ch_7", raceKey, idb, 7)
	r.charge("ch_9", raceKey, ida, 9)
	r.rec.Obs.Ledger.Redis = []history.RedisRecord{{Key: raceKey, Done: true, Status: 201, ChargeID: "ch_9"}}
	r.finding(check.DoubleCharge, raceKey, idb, ida)
	r.finding(check.ReplayMismatch, raceKey, ida, idb)
	r.finding(check.StoreDesync, raceKey, idb)
	r.rec.Obs.GateHeld = 5
	return r
}

// heldOptions vary a pg-tx forced race without changing its causal
// structure.
type heldOptions struct {
	conflicts int     // B's tries that get 409
	swap      bool    // op 0, not op 1, is the request the gate holds
	first     float64 // when B's first 409 is answered, whatever the clocks made of A's claim
	retry     float64 // when B sends the try that gets the replay: after the gate's timeout
}

// heldKey is pg-tx under forced-race: A takes the lock and is held after its
// key check; B gets 409 on each of its conflicting tries, the gate times
// out, A commits, B's next try gets the replay.
// gateTimeoutMS is forced-race's gate timeout, in milliseconds.
const gateTimeoutMS = 1000

func heldKey(o heldOptions) *record {
	r := newRecord("pg-tx", "forced-race", op(0, raceKey, 8, -1), op(1, raceKey, 8, -1))
	a, b := 1, 0
	if o.swap {
		a, b = 0, 1
	}
	ida := "o" + itoa(a) + "-t1"
	r.at("after-claim", ida, raceKey, 141.5)
	r.at("after-check", ida, raceKey, 151.5)
	for i := 1; i <= o.conflicts; i++ {
		call := 3 + float64(i-1)*90
		end := max(call+30, o.first+float64(i-1)*90)
		r.try(b, i, raceKey, call, call+10, end, end+1, 409, "", false)
	}
	// The gate (forced-race's, 1 s) gives up on A at 1151.5 ms; A then commits.
	const resumed = gateTimeoutMS - 300
	r.at("before-store-response", ida, raceKey, resumed+460.2)
	r.at("before-commit", ida, raceKey, resumed+461.2)
	r.at("after-commit", ida, raceKey, resumed+461.7)
	r.try(a, 1, raceKey, 2.6, 7.7, resumed+461.9, resumed+462.1, 201, "ch_1", false)
	idr := "o" + itoa(b) + "-t" + itoa(o.conflicts+1)
	r.try(b, o.conflicts+1, raceKey, resumed+o.retry, resumed+462.3, resumed+482.1, resumed+482.7, 201, "ch_1", true)
	r.at("after-claim", idr, raceKey, resumed+481.3)
	r.charge("ch_1", raceKey, ida, 1)
	r.rec.Obs.GateHeld = 5
	return r
}

// poisoned is redis-sticky under db-fault-mid-request: the Postgres link is
// cut before A1's commit, A's retries and the probe get 409 forever.
func poisoned() *record {
	o := op(0, stuckKey, 3, -1)
	o.Tries[0].Inject = api.Injection{Action: api.PGCut, Point: api.BeforeCommit}
	r := newRecord("redis-sticky", "db-fault-mid-request", o)
	r.at("after-check", "o0-t1", stuckKey, 18)
	r.at("after-claim", "o0-t1", stuckKey, 18.1)
	r.at("before-commit", "o0-t1", stuckKey, 94)
	r.try(0, 1, stuckKey, 4, 5, 95, 95.5, 503, "", false)
	r.try(0, 2, stuckKey, 117, 118, 119, 119.5, 409, "", false)
	r.try(0, 3, stuckKey, 142, 143, 144, 145, 409, "", false)
	probe := r.try(1, 1, stuckKey, 727, 728, 740, 740.5, 409, "", false)
	probe.ID = "o1-t1"
	r.rec.Obs.Ledger.Redis = []history.RedisRecord{{Key: stuckKey, Done: false}}
	r.finding(check.StuckKey, stuckKey, "o1-t1", "o0-t1")
	return r
}

// TestFixtureGateMatchesTheCatalog keeps heldKey's timings honest.
func TestFixtureGateMatchesTheCatalog(t *testing.T) {
	sc, err := scenarios.Lookup("forced-race")
	if err != nil || sc.Gate == nil || sc.Gate.Timeout != gateTimeoutMS*time.Millisecond {
		t.Fatalf("forced-race's gate is %+v (%v); the fixtures assume %d ms", sc.Gate, err, gateTimeoutMS)
	}
}
