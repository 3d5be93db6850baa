package narrate

import (
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// failoverRecord is redis-setnx under redis-failover: the key is charged,
// replication is cut, the primary killed holding the key's record, and
// the retry after the promotion charges again.
func failoverRecord(forced bool) *record {
	first, retry := op(0, raceKey, 1, -1), op(1, raceKey, 3, 0)
	retry.Stage = 2
	r := newRecord("redis-setnx", "redis-failover", first, retry)
	r.rec.Plan.Events = []workload.StoreEvent{{Stage: 1, Action: workload.ReplCut}, {Stage: 2, Action: workload.PrimaryKill}}
	r.try(0, 1, raceKey, 1, 2, 30, 31, 201, "ch_1", false)
	r.try(1, 1, raceKey, 900, 901, 930, 931, 201, "ch_2", false)
	r.charge("ch_1", raceKey, "o0-t1", 1)
	r.charge("ch_2", raceKey, "o1-t1", 2)
	r.rec.Obs.Failover = &scenarios.FailoverSeen{Replicated: 1, LinkDown: true, Promoted: true, Forced: forced, CanaryLost: true,
		Held: []string{"idem:" + raceKey}, Lost: []string{"idem:" + raceKey}}
	return r
}

// TestFailoverForcedIsTold: a failover the harness had to force is told as
// such, before the promotion; one Sentinel elected a leader for is not.
func TestFailoverForcedIsTold(t *testing.T) {
	const forcedLine = "Sentinel's own election has not promoted the replica in time, so the harness forces the failover (SENTINEL FAILOVER)\n"
	r := failoverRecord(true)
	text := Story(r.rec, r.res).Text()
	mustHave(t, text, "the Redis primary is killed (SIGKILL) holding key aef7c1aa…'s record, which its replica never got\n",
		forcedLine, "Sentinel promotes the replica to primary: the new primary has no record of key aef7c1aa…")
	r = failoverRecord(false)
	if text := Story(r.rec, r.res).Text(); strings.Contains(text, "forces the failover") || !strings.Contains(text, "Sentinel promotes the replica") {
		t.Errorf("an elected failover told as:\n%s", text)
	}
}
