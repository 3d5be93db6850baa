package narrate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// mustHave fails unless every line appears in text, in this order.
func mustHave(t *testing.T, text string, lines ...string) {
	t.Helper()
	rest := text
	for _, l := range lines {
		i := strings.Index(rest, l)
		if i < 0 {
			t.Fatalf("missing (or out of order): %q\nin:\n%s", l, text)
		}
		rest = rest[i+len(l):]
	}
}

func TestDoubleChargeForcedRace(t *testing.T) {
	r := doubleCharge(raceOptions{})
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"1. client A sends POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"2. replica 0 reads key aef7c1aa… from Redis (GET): absent (request A)\n",
		"3. the gate holds request A right after its key check, until another request of the key is answered\n",
		"4. client B sends the same POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"5. replica 0 reads key aef7c1aa… from Redis (GET): absent (request B)\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request B\n",
		"replica 0 stores request B's response (201, charge #1) in Redis under key aef7c1aa…\n",
		"client B gets 201 Created (charge #1)\n",
		"request B's answer opens the gate: request A goes on\n",
		"Postgres commits charge #2 (18.00 on acct-1) for request A\n",
		"in Redis under key aef7c1aa…, over request B's\n",
		"client A gets 201 Created (charge #2)\n",
		"balance of acct-1 from this key: 10,000.00 - 18.00 - 18.00 = 9,964.00, expected 9,982.00: DOUBLE CHARGE (18.00 overcharged)\n",
		"REPLAY MISMATCH: one key, different answers: client A got charge #2, client B got charge #1\n",
		"STORE DESYNC: Postgres committed charge #1 first, but Redis's record of key aef7c1aa… names charge #2\n")
	want := []check.Anomaly{check.DoubleCharge, check.ReplayMismatch, check.StoreDesync}
	if !reflect.DeepEqual(n.Anomalies, want) {
		t.Errorf("anomalies %v; want %v", n.Anomalies, want)
	}
	if n.Unforced {
		t.Error("a released gate reported as unforced")
	}
	mustHave(t, n.Mermaid, "sequenceDiagram\n",
		"participant cA as client A\n", "participant cB as client B\n", "participant R0 as replica 0\n",
		"participant Redis\n", "participant PG as Postgres\n",
		"cA->>R0: POST key aef7c1aa…, 18.00 on acct-1\n",
		"R0->>Redis: GET key (A)\n", "Redis-->>R0: absent\n",
		"Note over R0: the gate holds A right after its key check\n",
		"PG-->>R0: committed charge 1 (B)\n",
		"R0-->>cB: 201 charge 1\n",
		"Note over R0: B's answer opens the gate, A goes on\n",
		"PG-->>R0: committed charge 2 (A)\n",
		"Note over PG: acct-1 charged twice for one key: DOUBLE CHARGE\n")
	mustHave(t, strings.Join(n.Timings, "\n"), "request A = o0-t1 (op 0)", "request B = o1-t1 (op 1)",
		"charge #1 = ch_7, charge #2 = ch_9")
}

func TestGateThatGaveUpIsUnforced(t *testing.T) {
	r := unforcedRace()
	n := Story(r.rec, r.res)
	if !n.Unforced {
		t.Error("a gate that timed out while B was on its way: not reported as unforced")
	}
	mustHave(t, n.Text(), "the gate's timeout runs out before request B's commit: request A goes on\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request A\n", "Postgres commits charge #2 (18.00 on acct-1) for request B\n",
		"DOUBLE CHARGE")
	if held := heldKey(heldOptions{conflicts: 2, first: 40, retry: 480}); Story(held.rec, held.res).Unforced {
		t.Error("a gate nobody could open: reported as unforced")
	}
}

func TestCorrectStrategyAnswers409ThenReplays(t *testing.T) {
	r := heldKey(heldOptions{conflicts: 4, first: 33, retry: 479.4})
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"1. client A sends POST /v1/charges, key aef7c1aa…, 18.00 on acct-1\n",
		"2. replica 0 takes the lock on key aef7c1aa… in Postgres, in request A's transaction\n",
		"3. replica 0 reads key aef7c1aa… in Postgres: absent (request A)\n",
		"4. the gate holds request A right after its key check",
		"5. client B sends the same POST /v1/charges",
		"6. replica 0 answers 409 Conflict to request B1: key aef7c1aa… is in flight\n",
		"7. client B gets 409 Conflict",
		"8. the gate stops waiting, no other request of the key got that far: request A goes on\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request A\n",
		"client A gets 201 Created (charge #1)\n",
		"client B retries\n",
		"replica 0 finds key aef7c1aa… completed and replays the stored answer to request B2: 201 Created (charge #1)\n",
		"client B gets 201 Created (charge #1, replayed)\n",
		"balance of acct-1 from this key: 10,000.00 - 18.00 = 9,982.00: one charge, the key held (client B got 409, then the replay)\n")
	if len(n.Anomalies) != 0 || strings.Contains(n.Text(), "DOUBLE CHARGE") {
		t.Errorf("anomalies %v in a correct story:\n%s", n.Anomalies, n.Text())
	}
	mustHave(t, n.Mermaid, "participant cA as client A\n", "participant cB as client B\n", "participant PG as Postgres\n",
		"R0->>PG: try lock key (A)\n", "R0-->>cB: 409 in flight\n", "Note over R0: the gate times out, A goes on\n",
		"R0-->>cB: 201 charge 1, replayed\n", "Note over PG: one charge on acct-1\n")
	if strings.Contains(n.Mermaid, "participant Redis") {
		t.Error("a Postgres-only strategy drew Redis")
	}
}

// TestInFlightSetIsTold: a service whose profile answers a duplicate in
// flight 409 or 425 is told refusing with 425 as with 409, and retried.
func TestInFlightSetIsTold(t *testing.T) {
	r := heldKey(heldOptions{conflicts: 4, first: 33, retry: 479.4})
	r.rec.Cell.Profile = api.Profile{Name: "early", MissingKey: 400, InFlight: 409, InFlightAlso: []int{425}, Mismatch: 422}
	for i := range r.rec.Obs.History.Attempts {
		if a := &r.rec.Obs.History.Attempts[i]; a.Status == 409 {
			a.Status, a.Server.Status = 425, 425
		}
	}
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"6. replica 0 answers 425 Too Early to request B1: key aef7c1aa… is in flight\n",
		"7. client B gets 425 Too Early",
		"client B retries\n",
		"replica 0 finds key aef7c1aa… completed and replays the stored answer to request B2: 201 Created (charge #1)\n")
	mustHave(t, n.Mermaid, "R0-->>cB: 425 in flight\n")
}

func TestStuckKeyIsToldAsPoisoned(t *testing.T) {
	r := poisoned()
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(),
		"1. client A sends POST /v1/charges, key b627f945…, 18.00 on acct-1\n",
		"2. replica 0 claims key b627f945… in Redis (SET NX): it was free (request A1)\n",
		"3. request A1's Postgres transaction debits 18.00 from acct-1 and is about to commit\n",
		"4. fault: the link from replica 0 to Postgres is cut\n",
		"5. client A gets 503 Service Unavailable, which says nothing about the charge\n",
		"6. client A retries\n",
		"7. replica 0 answers 409 Conflict to request A2: key b627f945… is in flight\n",
		"8. client A gets 409 Conflict, and the same again on each retry while that lasts\n",
		"9. the probe sends POST /v1/charges, key b627f945…, 18.00 on acct-1 again",
		"10. replica 0 answers 409 Conflict to the probe: key b627f945… is in flight\n",
		"11. the probe gets 409 Conflict\n",
		"12. balance of acct-1 from this key: 10,000.00, untouched: no charge\n",
		"13. STUCK KEY: the probe still gets 409 Conflict once the faults have healed and the claim timeout has passed: key b627f945… is poisoned\n")
	if !reflect.DeepEqual(n.Anomalies, []check.Anomaly{check.StuckKey}) {
		t.Errorf("anomalies %v; want stuck_key", n.Anomalies)
	}
	mustHave(t, n.Mermaid, "participant cA as client A\n", "participant probe as the probe\n",
		"Note over R0,PG: link cut (fault)\n", "R0-->>probe: 409 in flight\n", "Note over PG: STUCK KEY\n")
}

func TestMermaidHasOnlyStatementsItCanParse(t *testing.T) {
	for name, r := range map[string]*record{"race": doubleCharge(raceOptions{}), "held": heldKey(heldOptions{conflicts: 3, first: 33, retry: 479.4}), "stuck": poisoned()} {
		lines := strings.Split(strings.TrimSuffix(Story(r.rec, r.res).Mermaid, "\n"), "\n")
		if lines[0] != "sequenceDiagram" {
			t.Errorf("%s: first line %q", name, lines[0])
		}
		for _, l := range lines[1:] {
			l = strings.TrimPrefix(l, "    ")
			ok := strings.HasPrefix(l, "participant ") || strings.HasPrefix(l, "Note over ") || strings.Contains(l, ">>") ||
				strings.Contains(l, "-x")
			if !ok || strings.ContainsAny(l, "#;") {
				t.Errorf("%s: statement %q", name, l)
			}
		}
	}
}

func TestHelpers(t *testing.T) {
	for minor, want := range map[int64]string{997600: "9,976.00", 5: "0.05", -123456789: "-1,234,567.89", 100000000: "1,000,000.00"} {
		if got := money(minor); got != want {
			t.Errorf("money(%d) = %q; want %q", minor, got, want)
		}
	}
	for i, want := range map[int]string{0: "A", 25: "Z", 26: "AA", 27: "AB"} {
		if got := letter(i); got != want {
			t.Errorf("letter(%d) = %q; want %q", i, got, want)
		}
	}
	if got := short(raceKey); got != "aef7c1aa…" {
		t.Errorf("short = %q", got)
	}
}

// answeredRace is pg-tx under forced-race since the gate opens on an
// answer: B1 gets 409 while A is held, and A goes on right after it.
func answeredRace() *record {
	r := newRecord("pg-tx", "forced-race", op(0, raceKey, 8, -1), op(1, raceKey, 8, -1))
	r.at("after-claim", "o1-t1", raceKey, 141.5)
	r.at("after-check", "o1-t1", raceKey, 151.5)
	r.try(0, 1, raceKey, 160, 161, 170, 171, 409, "", false)
	r.at("before-store-response", "o1-t1", raceKey, 172.5)
	r.at("before-commit", "o1-t1", raceKey, 173)
	r.at("after-commit", "o1-t1", raceKey, 174)
	r.try(1, 1, raceKey, 2.6, 7.7, 175, 176, 201, "ch_1", false)
	r.try(0, 2, raceKey, 230, 231, 240, 241, 201, "ch_1", true)
	r.at("after-claim", "o0-t2", raceKey, 235)
	r.charge("ch_1", raceKey, "o1-t1", 1)
	r.rec.Obs.GateHeld = 1
	return r
}

// TestGateOpenedByAnAnswer: a held request that went on right after
// another's answer, long before the gate's timeout, is told as released by
// that answer; one that waited out the timeout still is not.
func TestGateOpenedByAnAnswer(t *testing.T) {
	r := answeredRace()
	n := Story(r.rec, r.res)
	mustHave(t, n.Text(), "client B gets 409 Conflict", "request B1's answer opens the gate: request A goes on\n",
		"Postgres commits charge #1 (18.00 on acct-1) for request A\n")
	mustHave(t, n.Mermaid, "Note over R0: B1's answer opens the gate, A goes on\n")
	if strings.Contains(n.Text(), "the gate stops waiting") || strings.Contains(n.Mermaid, "times out") {
		t.Errorf("told as a timeout:\n%s", n.Text())
	}
	timedOut := heldKey(heldOptions{conflicts: 4, first: 33, retry: 479.4})
	if n := Story(timedOut.rec, timedOut.res); strings.Contains(n.Text(), "answer opens the gate") {
		t.Errorf("a gate that timed out told as opened by an answer:\n%s", n.Text())
	}
}
