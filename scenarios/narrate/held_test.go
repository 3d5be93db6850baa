package narrate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

// blockedRace is pg-blocking-claim under forced-race: the gate holds A
// right after its INSERT of the key; B's INSERT waits for A's transaction
// for the whole hold, the gate times out, A commits, and B gets A's replay.
// shift moves every time of B (the clocks, never the causality).
func blockedRace(shift float64) *record {
	r := newRecord("pg-blocking-claim", "forced-race", op(0, raceKey, 16, -1), op(1, raceKey, 16, -1))
	r.at("after-claim", "o0-t1", raceKey, 30)
	r.at("after-check", "o0-t1", raceKey, 31)
	r.at("before-store-response", "o0-t1", raceKey, 1032)
	r.at("before-commit", "o0-t1", raceKey, 1033)
	r.at("after-commit", "o0-t1", raceKey, 1035)
	r.try(0, 1, raceKey, 5, 6, 1036, 1037, 201, "ch_3", false)
	r.try(1, 1, raceKey, 7+shift, 8+shift, 1038+shift/10, 1039+shift/10, 201, "ch_3", true)
	r.charge("ch_3", raceKey, "o0-t1", 3)
	r.finding(check.HeldDuplicate, raceKey, "o1-t1", "o0-t1")
	return r
}

func TestHeldDuplicateIsToldAsHeld(t *testing.T) {
	n := Story(blockedRace(0).rec, blockedRace(0).res)
	mustHave(t, n.Text(),
		"1. client A sends POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"2. replica 0 inserts key aef7c1aa… in Postgres, in the charge's transaction: it was new (request A)\n",
		"the gate holds request A right after its key check",
		"client B sends the same POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"the gate stops waiting, no other request of the key got that far: request A goes on\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request A\n",
		"replica 0 held request B until request A finished, then finds key aef7c1aa… completed and replays the stored answer: 201 Created (charge #1)\n",
		"client B gets 201 Created (charge #1, replayed)\n",
		"HELD DUPLICATE: request B waited for request A to finish instead of getting 409 Conflict at once, then got A's answer: 201 Created (charge #1)\n")
	if want := []check.Anomaly{check.HeldDuplicate}; !reflect.DeepEqual(n.Anomalies, want) {
		t.Errorf("anomalies %v; want %v", n.Anomalies, want)
	}
	if strings.ContainsAny(strings.Join(n.Lines, ""), "µ") || strings.Contains(n.Text(), "ms") {
		t.Errorf("a duration in the story:\n%s", n.Text())
	}
	mustHave(t, strings.Join(n.Timings, "\n"), "request B waited 1028.0ms for request A")
	mustHave(t, n.Mermaid, "R0-->>cB: 201 charge 1, replayed after waiting for A\n", "Note over PG: HELD DUPLICATE\n")
	if other := Story(blockedRace(20).rec, blockedRace(20).res); other.Text() != n.Text() {
		t.Errorf("another timing told another story:\n%s\n----\n%s", other.Text(), n.Text())
	}
}

// TestHeldDuplicatesAreListedInStoryOrder: several requests held by one
// original are named once, in the story's order.
func TestHeldDuplicatesAreListedInStoryOrder(t *testing.T) {
	r := newRecord("pg-blocking-claim", "concurrent-duplicates", op(0, raceKey, 6, -1), op(1, raceKey, 6, -1), op(2, raceKey, 6, -1))
	r.at("after-claim", "o0-t1", raceKey, 3)
	r.at("after-check", "o0-t1", raceKey, 3.5)
	r.at("before-store-response", "o0-t1", raceKey, 90)
	r.at("before-commit", "o0-t1", raceKey, 91)
	r.at("after-commit", "o0-t1", raceKey, 92)
	r.try(0, 1, raceKey, 1, 2, 93, 94, 201, "ch_1", false)
	r.try(2, 1, raceKey, 1.2, 2.4, 95, 96, 201, "ch_1", true)
	r.try(1, 1, raceKey, 1.1, 2.2, 94, 95, 201, "ch_1", true)
	r.charge("ch_1", raceKey, "o0-t1", 1)
	r.finding(check.HeldDuplicate, raceKey, "o2-t1", "o0-t1")
	r.finding(check.HeldDuplicate, raceKey, "o1-t1", "o0-t1")
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(), "HELD DUPLICATE: requests B and C waited for request A to finish instead of getting 409 Conflict at once, then got A's answer: 201 Created (charge #1)\n")
	mustHave(t, strings.Join(n.Timings, "\n"), "request B waited", "request C waited")
}
