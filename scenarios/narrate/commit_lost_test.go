package narrate

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestLostCommitIsTold: redis-setnx under db-fault-after-commit. The link
// loses what Postgres answers from before A1's commit: the narration says
// the commit went through (its charge is in the ledger) and that the
// replica only saw its connection break; the retry charges again.
func TestLostCommitIsTold(t *testing.T) {
	o := op(0, raceKey, 3, -1)
	o.Tries[0].Inject = api.Injection{Action: api.PGDropReply, Point: api.BeforeCommit}
	r := newRecord("redis-setnx", "db-fault-after-commit", o)
	r.at("after-check", "o0-t1", raceKey, 2)
	r.at("before-commit", "o0-t1", raceKey, 4)
	r.try(0, 1, raceKey, 1, 1.5, 60, 61, 503, "", false)
	r.at("after-check", "o0-t2", raceKey, 82)
	r.at("before-commit", "o0-t2", raceKey, 84)
	r.at("after-commit", "o0-t2", raceKey, 85)
	r.try(0, 2, raceKey, 80, 81, 86, 87, 201, "ch_2", false)
	r.charge("ch_1", raceKey, "o0-t1", 1)
	r.charge("ch_2", raceKey, "o0-t2", 2)
	r.finding(check.DoubleCharge, raceKey, "o0-t1", "o0-t2")
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"fault: the link from replica 0 to Postgres loses whatever Postgres answers from here on, then breaks\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request A1, but its answer never comes back: replica 0 only sees its connection break\n",
		"Postgres commits charge #2 (18.00 on acct-1) for request A2\n")
	mustHave(t, n.Mermaid, "PG--xR0: committed charge 1, answer lost (A1)\n")
}

// TestStrandedRetryIsTold: innodb-get-lock under business-refusal. A is
// declined on replica 0; B's retry on replica 1 is answered 409 though
// nothing of the key is in flight: the narration says so, and the story
// ends in a stuck key without a probe or a fault.
func TestStrandedRetryIsTold(t *testing.T) {
	retry := op(1, raceKey, 1, -1)
	retry.Stage, retry.Tries[0].Replica = 1, 1
	r := newRecord("innodb-get-lock", "business-refusal", op(0, raceKey, 1, -1), retry)
	r.rec.Cell.Replicas = 2
	r.rec.Plan.TopUps = []workload.TopUp{{Stage: 1, Account: "acct-1", Amount: 1800}}
	r.try(0, 1, raceKey, 1, 2, 5, 6, api.StatusDeclined, "", false)
	b := r.try(1, 1, raceKey, 30, 31, 33, 34, 409, "", false)
	b.Replica, b.Server.Replica = 1, 1
	r.finding(check.StuckKey, raceKey, "o1-t1", "o0-t1")
	n := Story(r.rec, r.res)
	text := n.Text()
	mustHave(t, text, "is in flight, it says, though nothing", "was answered for good, yet its retries are refused as in flight")
	if strings.Contains(text, "after the faults healed") {
		t.Errorf("a stuck key without faults told as after the faults healed:\n%s", text)
	}
}
