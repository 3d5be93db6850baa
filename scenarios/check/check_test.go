package check

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

func TestNames(t *testing.T) {
	want := []string{"double_charge", "lost_ack", "replay_mismatch", "mismatch_executed", "balance", "status_contract",
		"stuck_key", "store_desync", "cached_error", "held_duplicate", "refusal_not_replayed"}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	Names()[0] = "changed"
	if Names()[0] != string(DoubleCharge) || Anomalies()[0] != DoubleCharge {
		t.Fatal("Names() exposes its backing array")
	}
	for _, a := range Anomalies() {
		if a.Short() == string(a) || len(a.Short()) > 3 {
			t.Errorf("%s has no short code (%q)", a, a.Short())
		}
		if registry[rank(a)].Anomaly != a {
			t.Errorf("%s: rank out of catalog order", a)
		}
	}
	ranks := []Anomaly{DoubleCharge, LostAck, ReplayMismatch, MismatchExecuted, Balance, StatusContract, StuckKey,
		StoreDesync, CachedError, HeldDuplicate, RefusalNotReplayed}
	for i, a := range ranks {
		if registry[i].Anomaly != a || i != rank(a) {
			t.Errorf("rank %d is %s in the catalog, want %s", i, registry[i].Anomaly, a)
		}
	}
	if Anomaly("unknown").Short() != "unknown" {
		t.Error("an unknown anomaly is not its own code")
	}
}

// cleanIETF is a run against a correct target under the ietf profile:
// concurrent duplicates answered 409 then replayed, a dropped response retried
// and replayed, a mismatch answered 422, a missing key answered 400.
func cleanIETF() Input {
	return input(api.IETF,
		ledger(
			ch("ch_1", keyA, "a1-1", 500, 1),
			ch("ch_2", keyB, "a3-1", 300, 2),
			ch("ch_3", keyC, "a4-1", 500, 3),
		),
		att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
		att(2, 1, keyA, 500, 5, served(6, 8), rejected(409), returned(10)),
		att(2, 2, keyA, 500, 100, acked(201, "ch_1", "B1")),
		att(3, 1, keyB, 300, 200, timedOut()),
		att(3, 2, keyB, 300, 1300, acked(201, "ch_2", "B2")),
		att(4, 1, keyC, 500, 2000, acked(201, "ch_3", "B3")),
		att(5, 1, keyC, 700, 2100, rejected(422)),
		att(6, 1, "", 500, 3000, rejected(400)),
	)
}

// cleanStripe is the same run under the stripe profile: replays carry the
// replay header, a mismatch is answered 400, a keyless request is charged.
func cleanStripe() Input {
	return input(api.Stripe,
		ledger(
			ch("ch_1", keyA, "a1-1", 500, 1),
			ch("ch_2", keyB, "a3-1", 300, 2),
			ch("ch_3", keyC, "a4-1", 500, 3),
			ch("ch_4", "", "a6-1", 500, 4),
		),
		att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
		att(2, 1, keyA, 500, 5, served(6, 8), rejected(409), returned(10)),
		att(2, 2, keyA, 500, 100, acked(201, "ch_1", "B1"), replayed()),
		att(3, 1, keyB, 300, 200, timedOut()),
		att(3, 2, keyB, 300, 1300, acked(201, "ch_2", "B2"), replayed()),
		att(4, 1, keyC, 500, 2000, acked(201, "ch_3", "B3")),
		att(5, 1, keyC, 700, 2100, rejected(400)),
		att(6, 1, "", 500, 3000, acked(201, "ch_4", "B4")),
	)
}

type runCase struct {
	name        string
	in          Input
	counts      map[Anomaly]int
	overcharged int64
	findings    []want
}

func runCases(t *testing.T, cases []runCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertReport(t, Run(tc.in), tc.counts, tc.overcharged, tc.findings)
		})
	}
}

func TestClean(t *testing.T) {
	runCases(t, []runCase{
		{name: "ietf", in: cleanIETF()},
		{name: "stripe", in: cleanStripe()},
		{name: "empty", in: Input{Profile: api.IETF}},
	})
}

func TestDoubleCharge(t *testing.T) {
	runCases(t, []runCase{{
		name: "dropped response charged again",
		in: input(api.IETF,
			ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyA, "a1-2", 500, 2)),
			att(1, 1, keyA, 500, 0, timedOut()),
			att(1, 2, keyA, 500, 1100, acked(201, "ch_2", "B2")),
		),
		counts:      map[Anomaly]int{DoubleCharge: 1},
		overcharged: 500,
		findings:    []want{{DoubleCharge, keyA, "acct_1", 500, ids("a1-1", "a1-2"), ids("ch_1", "ch_2")}},
	}, {
		name: "hidden transport re-send charged again",
		in: input(api.IETF,
			ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyA, "a1-2", 500, 2)),
			att(1, 1, keyA, 500, 0, timedOut()),
			att(1, 2, keyA, 500, 30, hidden(), acked(201, "ch_2", "B2")),
		),
		counts:      map[Anomaly]int{DoubleCharge: 1},
		overcharged: 500,
		findings:    []want{{DoubleCharge, keyA, "acct_1", 500, ids("a1-1", "a1-2"), ids("ch_1", "ch_2")}},
	}, {
		name: "three charges: money excludes the earliest by seq",
		in: input(api.IETF, ledger(
			ch("ch_9", keyA, "x-1", 700, 1),
			ch("ch_2", keyA, "x-2", 500, 3),
			ch("ch_5", keyA, "", 300, 2),
		)),
		counts:      map[Anomaly]int{DoubleCharge: 2},
		overcharged: 800,
		findings:    []want{{DoubleCharge, keyA, "acct_1", 800, ids("x-1", "x-2"), ids("ch_9", "ch_5", "ch_2")}},
	}, {
		name: "two groups add up",
		in: input(api.IETF, ledger(
			ch("ch_1", keyA, "x-1", 500, 1), ch("ch_2", keyA, "x-2", 500, 2),
			ch("ch_3", keyB, "y-1", 300, 3), ch("ch_4", keyB, "y-2", 300, 4),
		)),
		counts:      map[Anomaly]int{DoubleCharge: 2},
		overcharged: 800,
		findings: []want{
			{DoubleCharge, keyA, "acct_1", 500, ids("x-1", "x-2"), ids("ch_1", "ch_2")},
			{DoubleCharge, keyB, "acct_1", 300, ids("y-1", "y-2"), ids("ch_3", "ch_4")},
		},
	}, {
		name: "clean: one charge per account and key, keyless charges never double",
		in: input(api.IETF, ledger(
			ch("ch_1", keyA, "x-1", 500, 1),
			chOn("acct_2", ch("ch_2", keyA, "x-2", 500, 2)),
			ch("ch_3", keyB, "y-1", 300, 3),
			ch("ch_4", "", "z-1", 100, 4), ch("ch_5", "", "z-2", 100, 5),
		)),
	}})
}

func TestLostAck(t *testing.T) {
	runCases(t, []runCase{{
		name: "2xx without a charge id",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, acked(200, "", "{}")),
		),
		counts:   map[Anomaly]int{LostAck: 1},
		findings: []want{{LostAck, keyA, "acct_1", 500, ids("a1-1"), nil}},
	}, {
		name: "charge missing from the ledger, replayed too",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(1, 2, keyA, 500, 100, acked(201, "ch_1", "B1")),
		),
		counts: map[Anomaly]int{LostAck: 2},
		findings: []want{
			{LostAck, keyA, "acct_1", 500, ids("a1-1"), ids("ch_1")},
			{LostAck, keyA, "acct_1", 500, ids("a1-2"), ids("ch_1")},
		},
	}, {
		name: "ledger row of another amount, replay compared with the original request",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 600, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(1, 2, keyA, 500, 100, acked(201, "ch_1", "B1")),
		),
		counts: map[Anomaly]int{LostAck: 2},
		findings: []want{
			{LostAck, keyA, "acct_1", 500, ids("a1-1"), ids("ch_1")},
			{LostAck, keyA, "acct_1", 500, ids("a1-2", "a1-1"), ids("ch_1")},
		},
	}, {
		name: "keyless ack on another account",
		in: input(api.Stripe, ledger(chOn("acct_2", ch("ch_1", "", "a1-1", 500, 1))),
			att(1, 1, "", 500, 0, acked(201, "ch_1", "B1")),
		),
		counts:   map[Anomaly]int{LostAck: 1},
		findings: []want{{LostAck, "", "acct_1", 500, ids("a1-1"), ids("ch_1")}},
	}, {
		name: "charge id held twice",
		in: input(api.Stripe, ledger(ch("ch_1", "", "a1-1", 500, 1), ch("ch_1", "", "a1-1", 500, 2)),
			att(1, 1, "", 500, 0, acked(201, "ch_1", "B1")),
		),
		counts:   map[Anomaly]int{LostAck: 1},
		findings: []want{{LostAck, "", "acct_1", 500, ids("a1-1"), ids("ch_1")}},
	}, {
		name: "clean: a replay with the reference fingerprint is compared by charge id only",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(1, 2, keyA, 0, 100, hidden(), withFingerprint(fp("acct_1", 500)), acked(201, "ch_1", "B1")),
		),
	}})
}

func TestReplayMismatch(t *testing.T) {
	runCases(t, []runCase{{
		name: "another body, then another charge; first is by return time",
		in: input(api.IETF,
			ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyB, "a2-1", 500, 2)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1"), returned(300)),
			att(1, 2, keyA, 500, 100, acked(201, "ch_1", "B1 recomputed")),
			att(1, 3, keyA, 500, 400, acked(201, "ch_2", "B1 recomputed")),
			att(2, 1, keyB, 500, 500, acked(201, "ch_2", "B2")),
		),
		counts: map[Anomaly]int{ReplayMismatch: 2},
		findings: []want{
			{ReplayMismatch, keyA, "acct_1", 0, ids("a1-1", "a1-2"), ids("ch_1")},
			{ReplayMismatch, keyA, "acct_1", 0, ids("a1-3", "a1-2"), ids("ch_2", "ch_1")},
		},
	}, {
		name: "clean: identical replays",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(1, 2, keyA, 500, 100, acked(201, "ch_1", "B1")),
			att(1, 3, keyA, 500, 200, acked(201, "ch_1", "B1"), hidden()),
		),
	}})
}

func TestMismatchExecuted(t *testing.T) {
	runCases(t, []runCase{{
		name: "no fingerprint: the changed payload gets the original 2xx",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 700, 100, acked(201, "ch_1", "B1")),
		),
		counts: map[Anomaly]int{LostAck: 1, MismatchExecuted: 1},
		findings: []want{
			{LostAck, keyA, "acct_1", 700, ids("a2-1"), ids("ch_1")},
			{MismatchExecuted, keyA, "acct_1", 0, ids("a2-1", "a1-1"), ids("ch_1")},
		},
	}, {
		name: "no idempotency: the changed payload is charged and acked, counted once",
		in: input(api.IETF,
			ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_2", keyA, "a2-1", 700, 2)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 700, 100, acked(201, "ch_2", "B2")),
		),
		counts:      map[Anomaly]int{DoubleCharge: 1, MismatchExecuted: 1},
		overcharged: 700,
		findings: []want{
			{DoubleCharge, keyA, "acct_1", 700, ids("a1-1", "a2-1"), ids("ch_1", "ch_2")},
			{MismatchExecuted, keyA, "acct_1", 700, ids("a2-1", "a1-1"), ids("ch_2")},
		},
	}, {
		name: "charged on another account though the client timed out",
		in: input(api.IETF,
			ledger(ch("ch_1", keyA, "a1-1", 500, 1), chOn("acct_2", ch("ch_2", keyA, "a2-1", 700, 2))),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 700, 100, onAccount("acct_2"), timedOut()),
		),
		counts:   map[Anomaly]int{MismatchExecuted: 1},
		findings: []want{{MismatchExecuted, keyA, "acct_2", 700, ids("a2-1", "a1-1"), ids("ch_2")}},
	}, {
		name: "clean: mismatches answered 422 and 409",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 700, 20, served(21, 25), rejected(409)),
			att(3, 1, keyA, 900, 100, rejected(422)),
		),
	}})
}

func TestReference(t *testing.T) {
	runCases(t, []runCase{{
		name: "no charge: earliest by server start",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 700, 0, served(60, 70), failed(503)),
			att(2, 1, keyA, 500, 10, served(20, 30), rejected(402)),
		),
		counts:   map[Anomaly]int{StatusContract: 1},
		findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a1-1", "a2-1"), nil}},
	}, {
		name: "no charge, no server log: earliest by call",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 700, 0, unserved(), failed(503)),
			att(2, 1, keyA, 500, 10, unserved(), rejected(402)),
		),
		counts:   map[Anomaly]int{StatusContract: 1},
		findings: []want{{StatusContract, keyA, "acct_1", 0, ids("a2-1", "a1-1"), nil}},
	}, {
		name: "charge by an unknown attempt: earliest by server start",
		in: input(api.IETF, ledger(ch("ch_1", keyA, "ghost", 500, 1)),
			att(1, 1, keyA, 700, 0, served(60, 70), rejected(409)),
			att(2, 1, keyA, 500, 10, served(20, 30), acked(201, "ch_1", "B1")),
		),
	}, {
		name: "earliest charge by seq decides, not by id",
		in: input(api.IETF,
			ledger(ch("ch_2", keyA, "a1-1", 500, 2), chOn("acct_2", ch("ch_1", keyA, "a2-1", 700, 1))),
			att(1, 1, keyA, 500, 0, acked(201, "ch_2", "B1")),
			att(2, 1, keyA, 700, 100, onAccount("acct_2"), acked(201, "ch_1", "B2")),
		),
		counts:   map[Anomaly]int{MismatchExecuted: 1},
		findings: []want{{MismatchExecuted, keyA, "acct_1", 500, ids("a1-1", "a2-1"), ids("ch_2")}},
	}})
}

func TestBalance(t *testing.T) {
	charges := []history.Charge{
		ch("ch_1", keyA, "", 500, 1),
		chOn("acct_3", ch("ch_2", keyB, "", 300, 2)),
	}
	runCases(t, []runCase{{
		name: "two wrong accounts",
		in: input(api.IETF, history.Ledger{Charges: charges, Accounts: []history.Account{
			{ID: "acct_3", Opening: 1000, Balance: 900},
			{ID: "acct_1", Opening: 10000, Balance: 9000},
			{ID: "acct_2", Opening: 5000, Balance: 5000},
		}}),
		counts: map[Anomaly]int{Balance: 2},
		findings: []want{
			{Balance, "", "acct_1", 500, nil, nil},
			{Balance, "", "acct_3", 200, nil, nil},
		},
	}, {
		name: "a top-up counts: paid in, then charged",
		in: input(api.IETF, history.Ledger{Charges: charges, Accounts: []history.Account{
			{ID: "acct_1", Opening: 10000, Credited: 2000, Balance: 11500},
			{ID: "acct_3", Opening: 1000, Credited: 400, Balance: 700},
		}}),
		counts:   map[Anomaly]int{Balance: 1},
		findings: []want{{Balance, "", "acct_3", 400, nil, nil}},
	}, {
		name: "clean: balances agree, an account without charges",
		in: input(api.IETF, history.Ledger{Charges: charges, Accounts: []history.Account{
			{ID: "acct_1", Opening: 10000, Balance: 9500},
			{ID: "acct_2", Opening: 5000, Balance: 5000},
			{ID: "acct_3", Opening: 1000, Balance: 700},
		}}),
	}})
}

func TestStatusContract(t *testing.T) {
	keyless := func(p api.Profile, o ...opt) Input {
		return input(p, ledger(), att(1, 1, "", 500, 0, o...))
	}
	mismatch := func(p api.Profile, status int) Input {
		return input(p, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(2, 1, keyA, 700, 100, rejected(status)),
		)
	}
	duplicate := func(o ...opt) Input {
		return input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			append([]history.Attempt{att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1"))},
				att(2, 1, keyA, 500, 5, o...))...)
	}
	replay := func(p api.Profile, o ...opt) Input {
		return input(p, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(1, 2, keyA, 500, 100, append(o, acked(201, "ch_1", "B1"))...),
		)
	}
	one := func(key string, attempts, charges []string) []want {
		return []want{{StatusContract, key, "acct_1", 0, attempts, charges}}
	}
	sc := map[Anomaly]int{StatusContract: 1}
	ietfKeyless := input(api.IETF, ledger(ch("ch_1", "", "a1-1", 500, 1)),
		att(1, 1, "", 500, 0, acked(201, "ch_1", "B1")))
	stripeKeyless := ietfKeyless
	stripeKeyless.Profile = api.Stripe
	runCases(t, []runCase{
		{name: "ietf: keyless request charged instead of 400", in: ietfKeyless, counts: sc, findings: one("", ids("a1-1"), nil)},
		{name: "ietf: keyless request answered 500", in: keyless(api.IETF, failed(500)), counts: sc, findings: one("", ids("a1-1"), nil)},
		{name: "ietf: keyless request timed out, nothing to judge", in: keyless(api.IETF, timedOut())},
		{name: "ietf: keyless request answered 400", in: keyless(api.IETF, rejected(400))},
		{name: "stripe: keyless request charged", in: stripeKeyless},
		{name: "stripe: keyless request answered 402", in: keyless(api.Stripe, rejected(402))},
		{name: "stripe: keyless request answered 503", in: keyless(api.Stripe, failed(503)), counts: sc, findings: one("", ids("a1-1"), nil)},

		{name: "ietf: mismatch answered 400", in: mismatch(api.IETF, 400), counts: sc, findings: one(keyA, ids("a2-1", "a1-1"), nil)},
		{name: "ietf: mismatch answered 422", in: mismatch(api.IETF, 422)},
		{name: "ietf: mismatch answered 409", in: mismatch(api.IETF, 409)},
		{name: "stripe: mismatch answered 400", in: mismatch(api.Stripe, 400)},
		{name: "stripe: mismatch answered 422", in: mismatch(api.Stripe, 422), counts: sc, findings: one(keyA, ids("a2-1", "a1-1"), nil)},
		{name: "ietf: the same payload refused as a mismatch (422)", in: duplicate(served(60, 62), rejected(422)), counts: sc,
			findings: one(keyA, ids("a2-1", "a1-1"), nil)},
		{name: "stripe: the same payload answered 400, its mismatch status and any bad request's", in: func() Input {
			in := duplicate(served(60, 62), rejected(400))
			in.Profile = api.Stripe
			return in
		}()},

		{name: "concurrent duplicate answered 503", in: duplicate(served(6, 8), failed(503)), counts: sc, findings: one(keyA, ids("a2-1", "a1-1"), nil)},
		{name: "concurrent duplicate touching the first's end answered 500", in: duplicate(served(40, 45), failed(500)), counts: sc, findings: one(keyA, ids("a2-1", "a1-1"), nil)},
		{
			name: "the earlier of two concurrent duplicates answered 500",
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a2-1", 500, 1)),
				att(1, 1, keyA, 500, 0, served(1, 40), failed(500)),
				att(2, 1, keyA, 500, 5, served(6, 30), acked(201, "ch_1", "B1")),
			),
			counts:   sc,
			findings: one(keyA, ids("a1-1", "a2-1"), nil),
		},
		{name: "concurrent duplicate answered 503 under a placed fault", in: duplicate(served(6, 8), failed(503), faulted("db-cut"))},
		{name: "overlapping a request with another payload is no concurrent duplicate", in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, failed(503)),
			att(2, 1, keyA, 700, 5, served(6, 8), rejected(409)),
		)},
		{name: "concurrent duplicate answered 409", in: duplicate(served(6, 8), rejected(409))},
		{name: "sequential retry answered 503 is no concurrent duplicate", in: duplicate(served(41, 45), failed(503))},

		{
			name:     "a crowd of duplicates (sorted and swept): one 503 without a fault",
			in:       crowd(false),
			counts:   sc,
			findings: one(keyA, ids("a5-1", "a1-1"), nil),
		},
		{
			name:     "a crowd of duplicates (sorted and swept): the first one answered 503",
			in:       crowd(true),
			counts:   sc,
			findings: one(keyA, ids("a1-1", "a2-1"), nil),
		},

		{name: "stripe: replay without the replay header", in: replay(api.Stripe), counts: sc, findings: one(keyA, ids("a1-2", "a1-1"), ids("ch_1"))},
		{name: "stripe: replay with the replay header", in: replay(api.Stripe, replayed())},
		{name: "ietf: no replay header required", in: replay(api.IETF)},

		{
			name: "one attempt breaking two rules counts once",
			in: input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
				att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
				att(2, 1, keyA, 700, 10, served(11, 50), failed(500)),
				att(2, 2, keyA, 700, 20, served(21, 30), rejected(409)),
			),
			counts:   sc,
			findings: one(keyA, ids("a2-1", "a1-1"), nil),
		},
	})
}

// crowd is more than smallGroup same-key attempts: a1-1 served over [1, 100]
// and charged, eight duplicates over [5+k, 8+k] answered 409 but a5-1
// answered 503, a faulted 503 and a later 503 that overlaps nothing. With
// firstFails, a1-1 is answered 503 instead and a5-1 409.
func crowd(firstFails bool) Input {
	first, fifth := acked(201, "ch_1", "B1"), failed(503)
	if firstFails {
		first, fifth = failed(503), rejected(409)
	}
	atts := []history.Attempt{att(1, 1, keyA, 500, 0, served(1, 100), first)}
	for k := 1; k <= 8; k++ {
		o := rejected(409)
		if k == 4 {
			o = fifth
		}
		atts = append(atts, att(k+1, 1, keyA, 500, 4+k, served(5+k, 8+k), o))
	}
	atts = append(atts,
		att(10, 1, keyA, 500, 200, failed(503)),
		att(11, 1, keyA, 500, 49, served(50, 60), failed(503), faulted("db-cut")),
	)
	return input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)), atts...)
}

// everything holds one instance of every anomaly, on distinct keys, from a
// two-store target with a probe phase from 10.5 s.
func everything() Input {
	in := cleanIETF()
	extra := input(api.IETF, ledger(),
		att(10, 1, "k-double", 500, 5000, timedOut()),
		att(10, 2, "k-double", 500, 6100, acked(201, "ch_11", "B11")),
		att(11, 1, "k-lost", 500, 7000, acked(201, "ch_missing", "B")),
		att(12, 1, "k-replay", 500, 8000, acked(201, "ch_12", "B12")),
		att(12, 2, "k-replay", 500, 8100, acked(201, "ch_12", "B12 again")),
		att(13, 1, "k-mismatch", 500, 9000, acked(201, "ch_13", "B13")),
		att(14, 1, "k-mismatch", 900, 9100, acked(201, "ch_14", "B14")),
		att(15, 1, "", 500, 9500, failed(503)),
		att(16, 1, "k-stuck", 500, 9600, failed(503), faulted("db-cut")),
		att(16, 2, "k-stuck", 500, 10600, rejected(409)),
		att(17, 1, "k-cached", 500, 9700, failed(503), faulted("db-cut")),
		att(17, 2, "k-cached", 500, 9800, failed(503), replayed()),
		att(18, 1, "k-desync", 500, 9900, timedOut()),
		// replica 1 refused nothing at once: its duplicate waited for the original
		att(19, 1, "k-held", 500, 4000, served(4001, 4300), acked(201, "ch_17", "B17"), returned(4310), onReplica(1)),
		att(20, 1, "k-held", 500, 4005, served(4006, 4302), acked(201, "ch_17", "B17"), returned(4312), onReplica(1)),
		att(21, 1, "k-declined", 500, 4500, declined(declinedBody)),
		att(22, 1, "k-declined", 500, 4600, acked(201, "ch_18", "B18")),
	)
	in.History.Attempts = append(in.History.Attempts, extra.History.Attempts...)
	in.Ledger.Charges = append(in.Ledger.Charges,
		ch("ch_10", "k-double", "a10-1", 500, 10), ch("ch_11", "k-double", "a10-2", 500, 11),
		ch("ch_12", "k-replay", "a12-1", 500, 12),
		ch("ch_13", "k-mismatch", "a13-1", 500, 13), ch("ch_14", "k-mismatch", "a14-1", 900, 14),
		ch("ch_15", "k-mismatch", "a14-1", 900, 15),
		ch("ch_16", "k-desync", "a18-1", 500, 16),
		ch("ch_17", "k-held", "a19-1", 500, 17),
		ch("ch_18", "k-declined", "a22-1", 500, 18),
	)
	in.Ledger.Accounts[0].Balance -= 500 + 500 + 500 + 500 + 900 + 900 + 500 + 500 + 500 + 1 // one off
	in.History.Quiesced, in.History.ClaimTimeout = 10*time.Second, ms(claimMs)
	in.TwoStores = true
	in.Ledger.Redis = []history.RedisRecord{
		done(keyA, 201, "ch_1"), done(keyB, 201, "ch_2"), done(keyC, 201, "ch_3"),
		done("k-double", 201, "ch_10"), done("k-replay", 201, "ch_12"), done("k-mismatch", 201, "ch_13"),
		claimed("k-stuck", -1), done("k-cached", 503, ""), claimed("k-desync", time.Minute), done("k-held", 201, "ch_17"),
		done("k-declined", 201, "ch_18"),
	}
	return in
}

func TestEverything(t *testing.T) {
	r := Run(everything())
	want := map[Anomaly]int{DoubleCharge: 3, LostAck: 1, ReplayMismatch: 1, MismatchExecuted: 1, Balance: 1, StatusContract: 1,
		StuckKey: 1, StoreDesync: 1, CachedError: 1, HeldDuplicate: 1, RefusalNotReplayed: 1}
	assertCounts(t, r, want)
	if r.Overcharged != 2300 {
		t.Errorf("Overcharged = %d, want 2300", r.Overcharged)
	}
	i := slices.IndexFunc(r.Findings, func(f Finding) bool { return f.Anomaly == MismatchExecuted })
	if f := r.Findings[i]; f.Money != 1800 || !slices.Equal(f.Charges, ids("ch_14", "ch_15")) {
		t.Errorf("mismatch_executed money %d charges %v, want 1800 [ch_14 ch_15]", f.Money, f.Charges)
	}
	for i, f := range r.Findings {
		assertDetail(t, f)
		if i > 0 && rank(r.Findings[i-1].Anomaly) > rank(f.Anomaly) {
			t.Errorf("finding %d (%s) is out of order", i, f.Anomaly)
		}
	}
}

func assertCounts(t *testing.T, r Report, want map[Anomaly]int) {
	t.Helper()
	for _, name := range Anomalies() {
		if r.Counts[name] != want[name] {
			t.Errorf("Counts[%q] = %d, want %d\n%s", name, r.Counts[name], want[name], dump(r.Findings))
		}
	}
}

func rank(a Anomaly) int { return slices.Index(Anomalies(), a) }

func TestDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
	}{{"crafted", everything()}, {"generated", genInput(2_000, 7)}} {
		t.Run(tc.name, func(t *testing.T) {
			want := Run(tc.in)
			if !want.Failed() {
				t.Fatal("the input should hold anomalies")
			}
			wantJSON := mustJSON(t, want)
			rng := rand.New(rand.NewPCG(1, 2))
			for range 5 {
				in := tc.in
				in.History.Attempts = shuffled(rng, in.History.Attempts)
				in.Ledger.Charges = shuffled(rng, in.Ledger.Charges)
				in.Ledger.Accounts = shuffled(rng, in.Ledger.Accounts)
				in.Ledger.Redis = shuffled(rng, in.Ledger.Redis)
				got := Run(in)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("report differs after shuffling:\n%s\nwant\n%s", mustJSON(t, got), wantJSON)
				}
				if gotJSON := mustJSON(t, got); gotJSON != wantJSON {
					t.Fatal("JSON differs after shuffling")
				}
			}
		})
	}
}

func shuffled[T any](rng *rand.Rand, s []T) []T {
	s = slices.Clone(s)
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunDoesNotModifyInput(t *testing.T) {
	in := everything()
	before := mustJSON(t, in)
	Run(in)
	if mustJSON(t, in) != before {
		t.Fatal("Run modified its input")
	}
}

func TestReportJSON(t *testing.T) {
	got := mustJSON(t, Run(cleanIETF()))
	want := `{"anomalies":{"balance":0,"cached_error":0,"double_charge":0,"held_duplicate":0,"lost_ack":0,"mismatch_executed":0,` +
		`"refusal_not_replayed":0,"replay_mismatch":0,"status_contract":0,"store_desync":0,"stuck_key":0},"overcharged":0,"findings":[]}`
	if got != want {
		t.Fatalf("clean report JSON:\n%s\nwant\n%s", got, want)
	}
	r := Run(everything())
	if !strings.Contains(mustJSON(t, r), `"anomaly":"double_charge","key":"k-double","account":"acct_1","money":500`) {
		t.Fatalf("finding JSON lacks its fields: %s", mustJSON(t, r.Findings[0]))
	}
}

func TestResolve(t *testing.T) {
	wasApplied := false
	h := history.History{Seed: 9, Quiesced: 4 * time.Second, ClaimTimeout: ms(500), Attempts: []history.Attempt{
		att(1, 1, keyA, 500, 0, timedOut()),                  // charged: applied
		att(1, 2, keyA, 500, 1100, acked(201, "ch_1", "B1")), // acked: untouched
		att(2, 1, keyB, 500, 0, failed(503)),                 // not charged: not applied
		att(3, 1, keyC, 500, 0, timedOut(), unserved()),      // not charged: not applied
		att(4, 1, "", 500, 0, rejected(400), func(a *history.Attempt) { // keeps its Applied
			a.Applied = &wasApplied
		}),
	}}
	l := ledger(ch("ch_1", keyA, "a1-1", 500, 1), ch("ch_9", keyB, "", 500, 2))
	before := mustJSON(t, h)

	got := Resolve(h, l)

	if after := mustJSON(t, h); after != before {
		t.Fatalf("Resolve modified its input:\n%s\nwas\n%s", after, before)
	}
	applied := func(i int) string {
		switch a := got.Attempts[i].Applied; {
		case a == nil:
			return "nil"
		case *a:
			return "true"
		}
		return "false"
	}
	for i, want := range []string{"true", "nil", "false", "false", "false"} {
		if applied(i) != want {
			t.Errorf("attempt %s: Applied = %s, want %s", got.Attempts[i].ID, applied(i), want)
		}
	}
	if got.Seed != 9 || len(got.Attempts) != len(h.Attempts) || got.Quiesced != 4*time.Second || got.ClaimTimeout != ms(500) {
		t.Fatalf("Resolve lost data: seed %d, %d attempts, quiesced %v, claim timeout %v",
			got.Seed, len(got.Attempts), got.Quiesced, got.ClaimTimeout)
	}
	got.Attempts[0].Server.Start = 12345
	*got.Attempts[4].Applied = true
	if mustJSON(t, h) != before {
		t.Fatal("Resolve's result shares pointers with its input")
	}
}

// TestByUrgency: a report asks to fix money first, then holds, then the
// contract; every anomaly is in the order once.
func TestByUrgency(t *testing.T) {
	got := ByUrgency()
	if len(got) != len(Anomalies()) {
		t.Fatalf("%d anomalies by urgency, %d known", len(got), len(Anomalies()))
	}
	at := map[Anomaly]int{}
	for i, a := range got {
		at[a] = i
	}
	if at[DoubleCharge] != 0 || !(at[StoreDesync] < at[HeldDuplicate] && at[HeldDuplicate] < at[ReplayMismatch] &&
		at[HeldDuplicate] < at[StatusContract]) {
		t.Errorf("by urgency %v: want money, then holds, then the contract", got)
	}
}
