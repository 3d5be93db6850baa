package check

import (
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

func TestStoreDesync(t *testing.T) {
	// committed: Postgres committed ch_7 for a1-1, whose response was lost.
	committed := func() Input {
		return input(api.IETF, ledger(ch("ch_7", keyA, "a1-1", 500, 7)),
			att(1, 1, keyA, 500, 0, timedOut()),
		)
	}
	// foreign: key A's completed record names ch_9, which the ledger does
	// not hold, while Postgres committed ch_1 for key A.
	foreign := func() Input {
		return input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
		)
	}
	// crossed: key A's completed record names ch_2, key B's charge; key A
	// never charged, and its retry was answered from that record.
	crossed := input(api.IETF, ledger(ch("ch_2", keyB, "a2-1", 500, 2)),
		att(1, 1, keyA, 500, 0, acked(201, "ch_2", "B2")),
		att(2, 1, keyB, 500, 100, acked(201, "ch_2", "B2")),
	)
	desync := map[Anomaly]int{StoreDesync: 1}
	unmatched := []want{{StoreDesync, keyA, "acct_1", 500, ids("a1-1"), ids("ch_7")}}
	runCases(t, []runCase{
		{name: "(b) Postgres committed, Redis holds nothing", in: twoStores(committed()), counts: desync, findings: unmatched},
		{name: "(b) Postgres committed, Redis holds only the claim", in: twoStores(committed(), claimed(keyA, 30*time.Second)), counts: desync, findings: unmatched},
		{name: "(b) Postgres committed, Redis stored a 503", in: twoStores(committed(), done(keyA, 503, "")), counts: desync, findings: unmatched},
		{
			name: "(b) the earliest charge by seq is the unmatched one; an unrecorded attempt",
			in: twoStores(input(api.IETF, ledger(
				ch("ch_8", keyA, "", 700, 9),
				chOn("acct_2", ch("ch_3", keyA, "", 300, 4)),
			))),
			counts:   desync,
			findings: []want{{StoreDesync, keyA, "acct_2", 300, nil, ids("ch_3")}},
		},
		{
			name:     "(a) and (b) on one key count once: the record names a charge the ledger does not hold",
			in:       twoStores(foreign(), done(keyA, 201, "ch_9")),
			counts:   desync,
			findings: []want{{StoreDesync, keyA, "acct_1", 500, ids("a1-1"), ids("ch_1", "ch_9")}},
		},
		{
			name:     "(a) a key that never charged names another key's charge",
			in:       twoStores(crossed, done(keyA, 201, "ch_2"), done(keyB, 201, "ch_2")),
			counts:   desync,
			findings: []want{{StoreDesync, keyA, "", 0, nil, ids("ch_2")}},
		},
		{
			name: "(a) records of two keys, one naming a lost charge twice",
			in: twoStores(input(api.IETF, ledger()),
				done(keyB, 201, "ch_9"), done(keyA, 201, "ch_8"), done(keyB, 201, "ch_9")),
			counts: map[Anomaly]int{StoreDesync: 2},
			findings: []want{
				{StoreDesync, keyA, "", 0, nil, ids("ch_8")},
				{StoreDesync, keyB, "", 0, nil, ids("ch_9")},
			},
		},
		{
			name: "clean: records naming the right charges, a stale claim and a stored 402 for keys that never charged",
			in: twoStores(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 0, timedOut()),
				att(1, 2, keyA, 500, 1100, acked(201, "ch_1", "B1")),
				att(2, 1, keyB, 500, 0, rejected(402)),
			), done(keyB, 402, ""), claimed(keyC, -1), done(keyA, 201, "ch_1")),
		},
		{
			name: "caught: Redis names the key's second charge, not the one Postgres committed first",
			in: twoStores(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyA, "a1-2", 500, 2)),
				att(1, 1, keyA, 500, 0, timedOut()),
				att(1, 2, keyA, 500, 1100, acked(201, "ch_2", "B2")),
			), done(keyA, 201, "ch_2")),
			counts:      map[Anomaly]int{DoubleCharge: 1, StoreDesync: 1},
			overcharged: 500,
			findings: []want{{DoubleCharge, keyA, "acct_1", 500, ids("a1-1", "a1-2"), ids("ch_1", "ch_2")},
				{StoreDesync, keyA, "acct_1", 500, ids("a1-1"), ids("ch_1", "ch_2")}},
		},
		{
			name: "clean: a double charge is no desync when Redis names the key's first charge",
			in: twoStores(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyA, "a1-2", 500, 2)),
				att(1, 1, keyA, 500, 0, timedOut()),
				att(1, 2, keyA, 500, 1100, acked(201, "ch_2", "B2")),
			), done(keyA, 201, "ch_1")),
			counts:      map[Anomaly]int{DoubleCharge: 1},
			overcharged: 500,
			findings:    []want{{DoubleCharge, keyA, "acct_1", 500, ids("a1-1", "a1-2"), ids("ch_1", "ch_2")}},
		},
		{name: "clean: one store, the same data as (b)", in: withRedis(committed())},
		{name: "clean: one store, the same data as (a) and (b)", in: withRedis(foreign(), done(keyA, 201, "ch_9"))},
		{name: "clean: one store, the same data as (a)", in: withRedis(crossed, done(keyA, 201, "ch_2"), done(keyB, 201, "ch_2"))},
	})
}

// TestStoreDesyncIDsHeldTwice checks a charge id held under two keys: a
// record naming it under either key is matched with that key's row.
func TestStoreDesyncIDsHeldTwice(t *testing.T) {
	l := ledger(ch("ch_1", keyB, "a2-1", 500, 1), ch("ch_1", keyA, "a1-1", 500, 2))
	in := twoStores(input(api.IETF, l), done(keyA, 201, "ch_1"), done(keyB, 201, "ch_1"))
	r := Run(in)
	if r.Counts[StoreDesync] != 0 {
		t.Fatalf("store_desync = %d, want 0:\n%s", r.Counts[StoreDesync], dump(r.Findings))
	}
}

// TestKeyExpiryIsNoDoubleCharge: with a documented retention, a request that
// reaches the server after the key expired may charge again; within it, not.
func TestKeyExpiryIsNoDoubleCharge(t *testing.T) {
	build := func(gapMS int) Input {
		in := input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyA, "a2-1", 500, 2)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 500, 40+gapMS, acked(201, "ch_2", "B2")))
		in.History.KeyTTL = 300 * time.Millisecond
		return in
	}
	late := twoStores(build(1000), done(keyA, 201, "ch_2"))
	if r := Run(late); r.Failed() {
		t.Fatalf("a new request 1s after a 300ms TTL was flagged:\n%s", dump(r.Findings))
	}
	gone := twoStores(build(1000)) // the last record expired before the stores were read
	gone.History.End = 5 * time.Second
	if r := Run(gone); r.Counts[StoreDesync] != 0 {
		t.Fatalf("a record gone by TTL before the read counted as desync:\n%s", dump(r.Findings))
	}
	gone.History.End = 1100 * time.Millisecond
	if r := Run(gone); r.Counts[StoreDesync] != 1 {
		t.Fatalf("a record missing within its TTL: store_desync %d, want 1", r.Counts[StoreDesync])
	}
	if n := Run(build(100)).Counts[DoubleCharge]; n != 1 {
		t.Fatalf("a charge 100ms after the first, TTL 300ms: double_charge %d, want 1", n)
	}
	if n := Run(build(230)).Counts[DoubleCharge]; n != 1 {
		t.Fatalf("a charge 231ms after the first ended, TTL 300ms: double_charge %d, want 1", n)
	}
	// within the TTL's last tenth the record, written before the first
	// charge's answer ended, may be gone already
	if n := Run(build(280)).Counts[DoubleCharge]; n != 0 {
		t.Fatalf("a charge 281ms after the first ended, TTL 300ms: double_charge %d, want 0", n)
	}
}

// TestKeyExpiryCountsFromWhenTheChargeLooked: with the trace's time of
// the check, a charge that found its key free more than the TTL after the
// key's last charge reached the server may have found the record expired,
// however late that answer ended on a loaded machine; one that looked
// within the TTL is a double charge. A record missing when the stores were
// read more than the TTL after its charge reached the server may have
// expired.
func TestKeyExpiryCountsFromWhenTheChargeLooked(t *testing.T) {
	build := func(gapMS int, checked time.Duration) Input {
		in := input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyA, "a2-1", 500, 2)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 500, 40+gapMS, acked(201, "ch_2", "B2")))
		in.History.KeyTTL = 300 * time.Millisecond
		if checked > 0 {
			in.Checked = map[string]time.Duration{"a2-1": checked}
		}
		return in
	}
	if n := Run(build(230, ms(310))).Counts[DoubleCharge]; n != 0 {
		t.Errorf("the first reached the server at 1ms, the second looked at 310ms, TTL 300ms: double_charge %d, want 0", n)
	}
	if n := Run(build(230, 0)).Counts[DoubleCharge]; n != 1 {
		t.Errorf("the same without the check's time (231ms after the first ended): double_charge %d, want 1", n)
	}
	if n := Run(build(100, ms(150))).Counts[DoubleCharge]; n != 1 {
		t.Errorf("looked at 150ms, TTL 300ms: double_charge %d, want 1", n)
	}
	one := func(end time.Duration) Input {
		in := twoStores(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)), att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1"))))
		in.History.KeyTTL, in.History.End = 300*time.Millisecond, end
		return in
	}
	if n := Run(one(ms(305))).Counts[StoreDesync]; n != 0 {
		t.Errorf("a record whose charge reached the server at 1ms missing at 305ms, TTL 300ms: store_desync %d, want 0", n)
	}
	if n := Run(one(ms(290))).Counts[StoreDesync]; n != 1 {
		t.Errorf("the same record missing at 290ms: store_desync %d, want 1", n)
	}
}
