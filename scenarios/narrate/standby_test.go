package narrate

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// lagKey is the key of the second op of the standby-lag records.
const lagKey = "5c0b9e1d-7a41-4c1e-9f57-0d3c8e2a6b19"

// standbyOp is an op of pg-standby-lag: its first try's answer dropped,
// the replication link slow.
func standbyOp(id int, key string, after int) workload.Op {
	o := op(id, key, 4, after)
	o.Tries[0].Fault = workload.DropResponse
	o.Tries[0].Inject = api.Injection{Action: api.StandbyLag, Arg: 3120 * time.Millisecond, Point: api.BeforeCommit}
	return o
}

// loadedStandbyLag is pg-standby-read under pg-standby-lag on a loaded
// machine: A1's commit comes at commitAt, after its client gave up at its
// per-try timeout (at 279 ms); the retry A2 reads the standby at 320 ms. With more ops, each later one is a first try answered (and
// dropped) in 20 ms and a retry that reads the standby after its commit.
func loadedStandbyLag(commitAt float64, keys ...string) *record {
	var ops []workload.Op
	for i, k := range append([]string{raceKey}, keys...) {
		ops = append(ops, standbyOp(i, k, i-1))
	}
	r := newRecord("pg-standby-read", "pg-standby-lag", ops...)
	r.rec.Obs.Replication = &scenarios.Replication{}
	r.rec.Obs.Injected = len(ops)
	r.at("after-check", "o0-t1", raceKey, 80)
	r.at("before-store-response", "o0-t1", raceKey, 200)
	r.at("before-commit", "o0-t1", raceKey, 210)
	r.at("after-check", "o0-t2", raceKey, 320)
	r.at("after-commit", "o0-t1", raceKey, commitAt)
	r.at("before-store-response", "o0-t2", raceKey, max(340, commitAt+10))
	r.at("before-commit", "o0-t2", raceKey, max(341, commitAt+11))
	r.at("after-commit", "o0-t2", raceKey, max(345, commitAt+15))
	first := r.try(0, 1, raceKey, 29, 30, commitAt+1, 279, 0, "", false)
	first.Fault, first.Outcome, first.Err = workload.DropResponse, history.Indeterminate, history.TimeoutErr+"context deadline exceeded"
	first.Server.Status, first.Server.ChargeID = 201, "ch_1"
	r.try(0, 2, raceKey, 300, 305, max(346, commitAt+16), max(347, commitAt+17), 201, "ch_2", false)
	r.charge("ch_1", raceKey, "o0-t1", 1)
	r.charge("ch_2", raceKey, "o0-t2", 2)
	r.finding(check.DoubleCharge, raceKey, "o0-t1", "o0-t2")
	for i, k := range keys {
		id, t0 := i+1, 500+100*float64(i)
		a1, a2 := "o"+itoa(id)+"-t1", "o"+itoa(id)+"-t2"
		r.at("after-check", a1, k, t0+5)
		r.at("before-store-response", a1, k, t0+10)
		r.at("before-commit", a1, k, t0+11)
		r.at("after-commit", a1, k, t0+15)
		r.at("after-check", a2, k, t0+45)
		r.at("before-store-response", a2, k, t0+50)
		r.at("before-commit", a2, k, t0+51)
		r.at("after-commit", a2, k, t0+55)
		lost := r.try(id, 1, k, t0, t0+1, t0+16, t0+17, 0, "", false)
		lost.Fault, lost.Outcome, lost.Err = workload.DropResponse, history.Indeterminate, "unexpected EOF"
		lost.Server.Status, lost.Server.ChargeID = 201, "ch_"+itoa(2*id+1)
		r.try(id, 2, k, t0+40, t0+41, t0+56, t0+57, 201, "ch_"+itoa(2*id+2), false)
		r.charge("ch_"+itoa(2*id+1), k, a1, int64(2*id+1))
		r.charge("ch_"+itoa(2*id+2), k, a2, int64(2*id+2))
		r.finding(check.DoubleCharge, k, a1, a2)
	}
	return r
}

// TestStandbyLagAfterATimeout: the first try outlasted its client's
// timeout and committed before the retry read the standby. The story
// says the client gave up (no answer dropped before its eyes), that the
// answer came too late, and still tells the lag the retry met.
func TestStandbyLagAfterATimeout(t *testing.T) {
	r := loadedStandbyLag(285)
	text := Story(r.rec, r.res).Text()
	mustHave(t, text,
		"client A gives up waiting: no answer in time, so for the client the outcome is unknown\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request A1\n",
		"replica 0 answers 201 Created to request A1 (charge #1), too late: its client has stopped waiting",
		"client A retries\n",
		"absent (request A2): the standby has not replayed request A1's commit yet\n",
		"DOUBLE CHARGE")
	if strings.Contains(text, "never sees the answer") {
		t.Errorf("a client that timed out told as one whose answer was dropped:\n%s", text)
	}
}

// TestStandbyRaceIsNotToldAsLag: the retry read the standby before the
// first try committed. The story tells the race the history shows, not
// a lag it does not.
func TestStandbyRaceIsNotToldAsLag(t *testing.T) {
	r := loadedStandbyLag(330)
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"client A gives up waiting: no answer in time, so for the client the outcome is unknown\n",
		"client A retries\n",
		"absent (request A2): request A1 has not committed yet",
		"Postgres commits charge #1 (18.00 on acct-1) for request A1\n",
		"Postgres commits charge #2 (18.00 on acct-1) for request A2\n",
		"DOUBLE CHARGE")
	if strings.Contains(n.Text(), "the standby has not replayed") {
		t.Errorf("a look-up before the commit told as the standby's lag:\n%s", n.Text())
	}
	mustHave(t, n.Mermaid, "Note over cA: timeout, outcome unknown\n", "cA->>R0: retry\n", "R0->>PG: SELECT key on the standby (A2)\n",
		"PG-->>R0: committed charge 1 (A1)\n")
}

// TestStandbyStoryTellsAKeyThatLagged: the first key raced its retry on
// a loaded machine, the second met the lag; the story tells the second.
// The first key's replay probe, sent once the standby had caught up, is
// no retry that met it behind.
func TestStandbyStoryTellsAKeyThatLagged(t *testing.T) {
	r := loadedStandbyLag(330, lagKey)
	r.try(2, 1, raceKey, 900, 901, 903, 904, 201, "ch_1", true).ReplayProbe = true
	n := Story(r.rec, r.res)
	if !strings.Contains(n.Title, "key "+short(lagKey)) {
		t.Errorf("told %q; want the key that met the lag, %s", n.Title, short(lagKey))
	}
	mustHave(t, n.Text(), "client A never sees the answer: Toxiproxy dropped it",
		"absent (request A2): the standby has not replayed request A1's commit yet\n", "DOUBLE CHARGE")
}
