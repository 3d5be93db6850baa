package narrate

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// replayProbe adds replay probe op id of key at call ms: the replay of
// charge, or, with charged, a fresh charge of its own.
func (r *record) replayProbe(id int, key string, call float64, charge string, replayed bool) {
	a := r.try(id, 1, key, call, call+1, call+3, call+4, 201, charge, replayed)
	a.ReplayProbe = true
}

// TestQuietReplayProbesAreNotTold: replay probes that got the replay they
// asked for add nothing to the story.
func TestQuietReplayProbesAreNotTold(t *testing.T) {
	r := doubleCharge(raceOptions{})
	r.replayProbe(2, raceKey, 400, "ch_9", true)
	r.replayProbe(3, raceKey, 410, "ch_9", true)
	n := Story(r.rec, r.res)
	if strings.Contains(n.Text(), "probe") || strings.Contains(n.Mermaid, "rp") {
		t.Errorf("quiet replay probes told:\n%s\n%s", n.Text(), n.Mermaid)
	}
}

// TestReplayProbesThatChargeAreTold: without idempotency each replay probe
// charges again: both are told, numbered, after the traffic, and the
// balance counts their charges.
func TestReplayProbesThatChargeAreTold(t *testing.T) {
	r := newRecord("none", "dropped-response", op(0, raceKey, 2, -1))
	r.try(0, 1, raceKey, 1, 2, 10, 11, 201, "ch_1", false)
	r.replayProbe(1, raceKey, 100, "ch_2", false)
	r.replayProbe(2, raceKey, 120, "ch_3", false)
	r.charge("ch_1", raceKey, "o0-t1", 1)
	r.charge("ch_2", raceKey, "o1-t1", 2)
	r.charge("ch_3", raceKey, "o2-t1", 3)
	r.finding(check.DoubleCharge, raceKey, "o0-t1", "o1-t1", "o2-t1")
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"client A sends POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"replay probe 1 sends the same POST /v1/charges, key aef7c1aa…, 18.00 on acct-1, again once the traffic is over, to see its replay\n",
		"replay probe 1 gets 201 Created (charge #2)\n",
		"replay probe 2 sends the same POST /v1/charges",
		"replay probe 2 gets 201 Created (charge #3)\n",
		"balance of acct-1 from this key: 10,000.00 - 18.00 - 18.00 - 18.00 = 9,946.00, expected 9,982.00: DOUBLE CHARGE (36.00 overcharged)\n")
	mustHave(t, n.Mermaid, "participant cA as client A\n", "participant rp1 as replay probe 1\n", "participant rp2 as replay probe 2\n",
		"rp1->>R0: same POST again, key aef7c1aa…\n")
}

// TestReplayProbeWithAnotherAnswerIsTold: the one replay probe whose
// replay differs from every answer the traffic got (a body rendered anew)
// is told as "the replay probe".
func TestReplayProbeWithAnotherAnswerIsTold(t *testing.T) {
	r := newRecord("target", "dropped-response", op(0, raceKey, 2, -1))
	r.try(0, 1, raceKey, 1, 2, 10, 11, 201, "ch_1", false)
	r.replayProbe(1, raceKey, 100, "ch_1", true)
	r.replayProbe(2, raceKey, 120, "ch_1", true)
	for i := range r.rec.Obs.History.Attempts {
		if a := &r.rec.Obs.History.Attempts[i]; a.ID == "o2-t1" {
			a.Body = `{"id":"ch_1","created":120}`
		}
	}
	r.charge("ch_1", raceKey, "o0-t1", 1)
	r.finding(check.ReplayMismatch, raceKey, "o2-t1", "o0-t1")
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"client A gets 201 Created (charge #1)\n",
		"the replay probe sends the same POST /v1/charges",
		"replica 0 finds key aef7c1aa… completed and replays the stored answer to the replay probe: 201 Created (charge #1)\n",
		"REPLAY MISMATCH")
	if strings.Contains(n.Text(), "replay probe 1") {
		t.Errorf("the quiet probe was told:\n%s", n.Text())
	}
}

// TestProbeRepeatingATrafficAnswerIsNotTold: a replay probe that got an
// answer a request of the traffic got too is not told, even when a finding
// names it (which answer a finding compares with depends on which request
// came back first: the story must not).
func TestProbeRepeatingATrafficAnswerIsNotTold(t *testing.T) {
	r := doubleCharge(raceOptions{})
	r.replayProbe(2, raceKey, 400, "ch_9", true)
	before := Story(r.rec, r.res).Text()
	r.finding(check.ReplayMismatch, raceKey, "o2-t1", "o0-t1")
	if after := Story(r.rec, r.res).Text(); strings.Contains(after, "probe") {
		t.Errorf("a probe repeating a traffic answer was told:\n%s\n(before the finding:\n%s)", after, before)
	}
}
