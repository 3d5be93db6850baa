package check

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// cleanProbed is cleanIETF or cleanStripe run against a correct two-store
// target, with a probe phase: faults healed at 4 s, claims expire after
// 500 ms, and every key is retried from 5 s on (replayed, or refused for
// another payload or a missing key). Redis holds a completed record naming
// the right charge for every charged key, and a claim and a stored 503 for
// keys that never charged.
func cleanProbed(p api.Profile) Input {
	in, replay := cleanIETF(), opt(func(*history.Attempt) {})
	mismatch, keyless := rejected(422), rejected(400)
	if p.Name == api.Stripe.Name {
		in, replay, mismatch = cleanStripe(), replayed(), rejected(400)
		in.Ledger = ledger(append(in.Ledger.Charges, ch("ch_5", "", "a10-1", 500, 5))...)
		keyless = acked(201, "ch_5", "B5")
	}
	in.History.Quiesced, in.History.ClaimTimeout = 4*time.Second, ms(claimMs)
	in.History.Attempts = append(in.History.Attempts,
		att(7, 1, keyA, 500, 4500, acked(201, "ch_1", "B1"), replay),
		att(8, 1, keyB, 300, 5100, acked(201, "ch_2", "B2"), replay),
		att(9, 1, keyC, 700, 5200, mismatch),
		att(10, 1, "", 500, 5300, keyless),
		att(11, 1, "k-failed", 500, 3500, failed(503), faulted("db-cut")),
		att(11, 2, "k-failed", 500, 5400, failed(402)),
	)
	return twoStores(in,
		done(keyA, 201, "ch_1"), done(keyB, 201, "ch_2"), done(keyC, 201, "ch_3"),
		claimed("k-idle", 30*time.Second), done("k-failed", 402, ""),
	)
}

func TestStuckKey(t *testing.T) {
	stuck := map[Anomaly]int{StuckKey: 1}
	one := func(attempts ...string) []want { return []want{{StuckKey, keyA, "acct_1", 0, attempts, nil}} }
	runCases(t, []runCase{{
		name: "poisoned: the claim left by a 503, the probe still 409",
		in: probing(input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 1840, rejected(409)),
		)),
		counts: stuck, findings: one("a1-2", "a1-1"),
	}, {
		name: "poisoned: two probes, the claim left by a timeout and still in Redis; one key counts once",
		in: withRedis(probing(input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, timedOut()),
			att(1, 2, keyA, 500, 1100, rejected(409)),
			att(1, 3, keyA, 500, 1600, rejected(409)),
			att(1, 4, keyA, 500, 2000, rejected(409)),
		)), claimed(keyA, -1)),
		counts: stuck, findings: one("a1-3", "a1-4", "a1-1"),
	}, {
		name: "a 409 at exactly quiesced + claim timeout is a probe",
		in: probing(input(api.Stripe, ledger(),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, probeMs, rejected(409)),
		)),
		counts: stuck, findings: one("a1-2", "a1-1"),
	}, {
		name: "no attempt left a claim: only the probe is named",
		in: probing(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, acked(201, "ch_1", "B1")),
			att(1, 2, keyA, 500, 1600, rejected(409)),
		)),
		counts: stuck, findings: one("a1-2"),
	}, {
		name:   "a crowd of probes (sorted and swept): concurrent 409s excused, a later one not",
		in:     probeCrowd(true),
		counts: stuck, findings: one("a10-1"),
	}, {
		name: "clean: the probe executes after a failure that committed nothing",
		in: probing(input(api.IETF, ledger(ch("ch_1", keyA, "a1-2", 500, 1)),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 1600, acked(201, "ch_1", "B1")),
		)),
	}, {
		name: "clean: the probe replays",
		in: probing(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, timedOut()),
			att(1, 2, keyA, 500, 1600, acked(201, "ch_1", "B1"), replayed()),
		)),
	}, {
		name: "clean: a 409 before quiesced + claim timeout is not stuck",
		in: probing(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, timedOut()),
			att(1, 2, keyA, 500, 1100, rejected(409)),
			att(1, 3, keyA, 500, probeMs-1, rejected(409)),
			att(1, 4, keyA, 500, 1600, acked(201, "ch_1", "B1")),
		)),
	}, {
		name: "clean: a probe answered 409 while another probe holds the claim",
		in: probing(input(api.IETF, ledger(ch("ch_1", keyA, "a2-1", 500, 1)),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(2, 1, keyA, 500, 1600, served(1601, 1640), acked(201, "ch_1", "B1")),
			att(3, 1, keyA, 500, 1605, served(1606, 1610), rejected(409)),
		)),
	}, {
		name: "clean: a crowd of concurrent probes",
		in:   probeCrowd(false),
	}, {
		name: "poisoned: the confirming probe got 409 again; every 409 probe is named",
		in: probing(input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 1600, rejected(409)),
			att(1, 3, keyA, 500, 2900, rejected(409)),
		)),
		counts: stuck, findings: one("a1-2", "a1-3", "a1-1"),
	}, {
		name: "clean: the probe got 409 (a leftover transaction still held the key), the confirming probe replays",
		in: probing(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, timedOut()),
			att(1, 2, keyA, 500, 1600, rejected(409)),
			att(1, 3, keyA, 500, 2900, acked(201, "ch_1", "B1"), replayed()),
		)),
	}, {
		name: "clean: without a probe phase a late 409 proves nothing",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 5000, rejected(409)),
		),
	}})
}

// probeCrowd is more than smallGroup probes of one key: a1-1 served over
// [1601, 1700] and charged, eight duplicates over [1605+k, 1608+k]
// answered 409 while it runs and, with late, a10-1 answered 409 over
// [1801, 1840] once it has ended.
func probeCrowd(late bool) Input {
	atts := []history.Attempt{att(1, 1, keyA, 500, 1600, served(1601, 1700), acked(201, "ch_1", "B1"))}
	for k := 1; k <= 8; k++ {
		atts = append(atts, att(k+1, 1, keyA, 500, 1604+k, served(1605+k, 1608+k), rejected(409)))
	}
	last := acked(201, "ch_1", "B1")
	if late {
		last = rejected(409)
	}
	atts = append(atts, att(10, 1, keyA, 500, 1800, last))
	return probing(input(api.IETF, ledger(ch("ch_1", keyA, "a1-1", 500, 1)), atts...))
}

func TestCachedError(t *testing.T) {
	charged := ledger(ch("ch_1", keyA, "a1-1", 500, 1))
	// replayed503: a1-1 failed with 503 under a fault (and committed, when
	// the ledger says so); its retry a1-2 got the stored 503 back.
	replayed503 := func(p api.Profile, l history.Ledger) Input {
		return input(p, l,
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 100, failed(503), replayed()),
		)
	}
	// probe503: the same, but the retry is a probe without the replay header.
	probe503 := func(p api.Profile, l history.Ledger, o ...opt) Input {
		return probing(input(p, l,
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut"), withBody(storeDown("commit"))),
			att(1, 2, keyA, 500, 1600, append([]opt{failed(503)}, o...)...),
		))
	}
	// confirmed: probe503's probe got the failed attempt's 503 body, and
	// the key's confirming probe a1-3 got o (and charged, with charged).
	confirmed := func(charged bool, o ...opt) Input {
		in := probe503(api.IETF, ledger(), withBody(storeDown("commit")))
		in.History.Attempts = append(in.History.Attempts, att(1, 3, keyA, 500, 2900, o...))
		if charged {
			in.Ledger = ledger(ch("ch_1", keyA, "a1-3", 500, 1))
		}
		return in
	}
	cached := map[Anomaly]int{CachedError: 1}
	one := func(attempts, charges []string) []want {
		return []want{{CachedError, keyA, "acct_1", 0, attempts, charges}}
	}
	runCases(t, []runCase{
		{name: "ietf: a replayed 503", in: replayed503(api.IETF, ledger()), counts: cached, findings: one(ids("a1-2", "a1-1"), nil)},
		{name: "ietf: a replayed 503 for a key that charged", in: replayed503(api.IETF, charged), counts: cached, findings: one(ids("a1-2", "a1-1"), ids("ch_1"))},
		{name: "stripe: a replayed 503 for a key that committed nothing", in: replayed503(api.Stripe, ledger())},
		{name: "stripe: a replayed 503 for a key that charged", in: replayed503(api.Stripe, charged), counts: cached, findings: one(ids("a1-2", "a1-1"), ids("ch_1"))},

		{name: "ietf: a probe got 503 without the replay header", in: probe503(api.IETF, ledger()), counts: cached, findings: one(ids("a1-2"), nil)},
		{name: "stripe: a probe got 503, nothing committed", in: probe503(api.Stripe, ledger())},
		{name: "stripe: a probe got 503 for a key that charged", in: probe503(api.Stripe, charged), counts: cached, findings: one(ids("a1-2"), ids("ch_1"))},
		{name: "ietf: a probe got 503 under a placed fault", in: probe503(api.IETF, ledger(), faulted("db-cut"))},
		{name: "ietf: a probe got 402", in: probe503(api.IETF, ledger(), rejected(402))},
		{name: "ietf: a probe got the 503 body of the failed attempt", in: probe503(api.IETF, ledger(), withBody(storeDown("commit"))),
			counts: cached, findings: one(ids("a1-2"), nil)},
		{name: "ietf: a probe failed afresh, a body no attempt got", in: probe503(api.IETF, ledger(), withBody(storeDown("begin")))},
		{name: "ietf: the probe got the failed attempt's 503 again, its confirming probe too", in: confirmed(false, failed(503), withBody(storeDown("commit"))),
			counts: cached, findings: one(ids("a1-3"), nil)},
		{name: "ietf: the probe got the failed attempt's 503 again (a stale connection), its confirming probe executes",
			in: confirmed(true, acked(201, "ch_1", "B1"))},

		{
			name: "ietf: a retry got 503 during the faults, no replay header",
			in: probing(input(api.IETF, ledger(),
				att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
				att(1, 2, keyA, 500, 1200, failed(503)),
			)),
		},
		{
			name: "ietf: each replay counts, a replayed probe too",
			in: probing(input(api.IETF, ledger(),
				att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
				att(1, 2, keyA, 500, 100, failed(503), replayed()),
				att(1, 3, keyA, 500, 1600, failed(503), replayed()),
			)),
			counts: map[Anomaly]int{CachedError: 2},
			findings: []want{
				{CachedError, keyA, "acct_1", 0, ids("a1-2", "a1-1"), nil},
				{CachedError, keyA, "acct_1", 0, ids("a1-3", "a1-1"), nil},
			},
		},
		{
			name: "ietf: a replayed 500 whose original is not in the history",
			in: input(api.IETF, ledger(),
				att(1, 1, keyA, 500, 0, timedOut()),
				att(1, 2, keyA, 500, 1100, failed(500), replayed()),
			),
			counts: cached, findings: one(ids("a1-2"), nil),
		},
		{
			name:     "stripe: a keyless probe answered 503 breaks the status contract, it is no cached error",
			in:       probing(input(api.Stripe, ledger(), att(1, 1, "", 500, 1600, failed(503), replayed()))),
			counts:   map[Anomaly]int{StatusContract: 1},
			findings: []want{{StatusContract, "", "acct_1", 0, ids("a1-1"), nil}},
		},
	})
}

func TestCleanProbed(t *testing.T) {
	runCases(t, []runCase{
		{name: "ietf", in: cleanProbed(api.IETF)},
		{name: "stripe", in: cleanProbed(api.Stripe)},
	})
}

func TestNewDetails(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
		want []string
	}{{
		name: "stuck key",
		in: withRedis(probing(input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 2200, rejected(409)),
		)), claimed(keyA, 90*time.Second)),
		want: []string{"key 3f2a1b4c…: attempt a1-2 still got 409 at 2.20s, 1.20s after the faults healed (claim timeout 500ms); " +
			"attempt a1-1 left the claim behind when it got 503 at 0s; Redis still holds its in-flight claim, expiring in 1m30s: " +
			"the key is poisoned"},
	}, {
		name: "cached error",
		in: input(api.IETF, ledger(),
			att(1, 1, keyA, 500, 0, failed(503), faulted("db-cut")),
			att(1, 2, keyA, 500, 100, failed(503), replayed()),
		),
		want: []string{"key 3f2a1b4c…: attempt a1-2 got 503 served from the key's stored response (first returned to attempt a1-1); " +
			"the ietf profile never replays a 5xx: the key is poisoned"},
	}, {
		name: "store desync",
		in: twoStores(input(api.IETF, ledger(ch("ch_7", keyA, "a1-1", 500, 1)),
			att(1, 1, keyA, 500, 0, timedOut()),
		), claimed(keyA, 30*time.Second)),
		want: []string{"key 3f2a1b4c…: Postgres committed ch_7 (5.00 on account acct_1, by attempt a1-1) but Redis holds no " +
			"completed record, only an in-flight claim, expiring in 30.00s: once the claim expires a retry charges again"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(tc.in)
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.Detail)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("details:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                      "0s",
		250 * time.Microsecond: "250µs",
		500 * time.Millisecond: "500ms",
		999*time.Millisecond + 400*time.Microsecond: "999ms",
		999*time.Millisecond + 600*time.Microsecond: "1.00s",
		1840 * time.Millisecond:                     "1.84s",
		1200 * time.Millisecond:                     "1.20s",
		59996 * time.Millisecond:                    "1m",
		125 * time.Second:                           "2m5s",
		24 * time.Hour:                              "24h",
		90 * time.Minute:                            "1h30m",
		-1200 * time.Millisecond:                    "-1.20s",
	} {
		if got := duration(d); got != want {
			t.Errorf("duration(%d) = %q, want %q", d, got, want)
		}
	}
}

// storeDown is the body of a 503 whose ledger connection died at step.
func storeDown(step string) string {
	return `{"code":"store_unavailable","message":"` + step + `: conn closed"}`
}

func withBody(body string) opt { return func(a *history.Attempt) { a.Body = body } }
