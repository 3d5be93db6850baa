package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Keys used by the crafted histories; the first 8 characters differ.
const (
	keyA = "3f2a1b4c-aaaa-4000-8000-000000000001"
	keyB = "7c9e0d12-bbbb-4000-8000-000000000002"
	keyC = "b05e7a31-cccc-4000-8000-000000000003"
)

const opening = 100_000

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func fp(account string, amount int64) string {
	return api.ChargeRequest{Account: account, Amount: amount, Currency: "EUR"}.Fingerprint()
}

type opt func(*history.Attempt)

// att builds attempt "a<op>-<try>" on acct_1, called at t ms, served over
// [t+1, t+40] ms, returning at t+50 ms. Its outcome comes from opts.
func att(op, try int, key string, amount int64, t int, opts ...opt) history.Attempt {
	a := history.Attempt{
		Op: op, Try: try, ID: fmt.Sprintf("a%d-%d", op, try),
		Key: key, Account: "acct_1", Amount: amount,
		Call: ms(t), Return: ms(t + 50),
		Server: &history.ServerView{Start: ms(t + 1), End: ms(t + 40)},
	}
	for _, o := range opts {
		o(&a)
	}
	if a.Fingerprint == "" {
		a.Fingerprint = fp(a.Account, a.Amount)
	}
	if a.Server != nil {
		a.Server.Status, a.Server.ChargeID, a.Server.Replayed = a.Status, a.ChargeID, a.Replayed
		a.Server.Replica = a.Replica
	}
	return a
}

func acked(status int, charge, body string) opt {
	return func(a *history.Attempt) {
		a.Outcome, a.Status, a.ChargeID, a.Body = history.Acked, status, charge, body
	}
}

func rejected(status int) opt {
	return func(a *history.Attempt) { a.Outcome, a.Status = history.Rejected, status }
}

// timedOut: the client gave up after 1 s with no answer.
func timedOut() opt {
	return func(a *history.Attempt) {
		a.Outcome, a.Err, a.Return = history.Indeterminate, "timeout", a.Call+time.Second
	}
}

func failed(status int) opt {
	return func(a *history.Attempt) { a.Outcome, a.Status = history.Indeterminate, status }
}

func served(start, end int) opt {
	return func(a *history.Attempt) { a.Server = &history.ServerView{Start: ms(start), End: ms(end)} }
}

// claimedAt logs the attempt's claim round trip over [start, end] ms, a
// claim that may wait, and, when handled > 0, its handler's return (after
// served).
func claimedAt(start, end, handled int) opt {
	return func(a *history.Attempt) {
		s := a.Server
		s.ClaimStart, s.ClaimEnd, s.ClaimWaits, s.Handled = ms(start), ms(end), true, ms(handled)
	}
}

// triedAt logs the attempt's claim as a try (it never waits) over
// [start, end] ms (after served).
func triedAt(start, end int) opt {
	return func(a *history.Attempt) { a.Server.ClaimStart, a.Server.ClaimEnd = ms(start), ms(end) }
}

func unserved() opt { return func(a *history.Attempt) { a.Server = nil } }

func returned(t int) opt { return func(a *history.Attempt) { a.Return = ms(t) } }

func replayed() opt { return func(a *history.Attempt) { a.Replayed = true } }

func hidden() opt { return func(a *history.Attempt) { a.Hidden = true } }

func faulted(f string) opt { return func(a *history.Attempt) { a.Fault = f } }

func onReplica(n int) opt { return func(a *history.Attempt) { a.Replica = n } }

func onAccount(acct string) opt { return func(a *history.Attempt) { a.Account = acct } }

func withFingerprint(f string) opt { return func(a *history.Attempt) { a.Fingerprint = f } }

// ch builds a ledger row on acct_1.
func ch(id, key, attempt string, amount, seq int64) history.Charge {
	return history.Charge{ID: id, Account: "acct_1", Amount: amount, Key: key, AttemptID: attempt, Seq: seq}
}

func chOn(acct string, c history.Charge) history.Charge {
	c.Account = acct
	return c
}

// ledger holds charges and, for every account they touch plus acct_1, an
// opening balance of 100000 and the balance that charges leave.
func ledger(charges ...history.Charge) history.Ledger {
	sums := map[string]int64{"acct_1": 0}
	for _, c := range charges {
		sums[c.Account] += c.Amount
	}
	l := history.Ledger{Charges: charges}
	for acct, sum := range sums {
		l.Accounts = append(l.Accounts, history.Account{ID: acct, Opening: opening, Balance: opening - sum})
	}
	slices.SortFunc(l.Accounts, func(a, b history.Account) int { return strings.Compare(a.ID, b.ID) })
	return l
}

func input(p api.Profile, l history.Ledger, atts ...history.Attempt) Input {
	return Input{History: history.History{Seed: 1, Attempts: atts}, Ledger: l, Profile: p}
}

// want is a finding without its detail sentence.
type want struct {
	anomaly  Anomaly
	key      string
	account  string
	money    int64
	attempts []string
	charges  []string
}

func ids(s ...string) []string { return s }

// assertReport checks exact counts (names not in counts must be zero), the
// overcharged sum, and every finding's evidence, in order.
func assertReport(t *testing.T, r Report, counts map[Anomaly]int, overcharged int64, wants []want) {
	t.Helper()
	for _, name := range Anomalies() {
		got, ok := r.Counts[name]
		if !ok {
			t.Errorf("Counts lacks %q", name)
		}
		if got != counts[name] {
			t.Errorf("Counts[%q] = %d, want %d", name, got, counts[name])
		}
	}
	if len(r.Counts) != len(Names()) {
		t.Errorf("Counts has %d names, want %d: %v", len(r.Counts), len(Names()), r.Counts)
	}
	if r.Overcharged != overcharged {
		t.Errorf("Overcharged = %d, want %d", r.Overcharged, overcharged)
	}
	if r.Failed() != (len(counts) > 0) {
		t.Errorf("Failed() = %v with counts %v", r.Failed(), r.Counts)
	}
	if len(r.Findings) != len(wants) {
		t.Errorf("%d findings, want %d:\n%s", len(r.Findings), len(wants), dump(r.Findings))
		return
	}
	for i, w := range wants {
		f := r.Findings[i]
		got := want{f.Anomaly, f.Key, f.Account, f.Money, f.Attempts, f.Charges}
		if got.anomaly != w.anomaly || got.key != w.key || got.account != w.account || got.money != w.money ||
			!slices.Equal(got.attempts, w.attempts) || !slices.Equal(got.charges, w.charges) {
			t.Errorf("finding %d = %+v\nwant %+v\ndetail: %s", i, got, w, f.Detail)
		}
		assertDetail(t, f)
	}
}

// assertDetail checks that a detail is one sentence naming the key, the
// account of a balance finding, and every attempt and charge in evidence.
func assertDetail(t *testing.T, f Finding) {
	t.Helper()
	d := f.Detail
	if d == "" || strings.ContainsAny(d, "\n\r") {
		t.Errorf("detail %q is not a single sentence", d)
	}
	need := slices.Concat(f.Attempts, f.Charges)
	if f.Key != "" {
		need = append(need, f.Key[:min(len(f.Key), shortLen)])
	}
	if f.Anomaly == Balance {
		need = append(need, f.Account)
	}
	for _, s := range need {
		if !strings.Contains(d, s) {
			t.Errorf("detail %q does not name %q", d, s)
		}
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s key=%.8s acct=%s money=%d attempts=%v charges=%v: %s\n",
			f.Anomaly, f.Key, f.Account, f.Money, f.Attempts, f.Charges, f.Detail)
	}
	return b.String()
}

// Probe phase of the crafted histories: faults healed at 1 s, claims expire
// after 500 ms, so attempts called from 1.5 s on are probes.
const (
	quiescedMs = 1000
	claimMs    = 500
	probeMs    = quiescedMs + claimMs
)

// probing gives in a probe phase: quiesced at 1 s, claim timeout 500 ms.
func probing(in Input) Input {
	in.History.Quiesced, in.History.ClaimTimeout = ms(quiescedMs), ms(claimMs)
	return in
}

// twoStores marks in as a Redis + Postgres target holding recs in Redis.
func twoStores(in Input, recs ...history.RedisRecord) Input {
	in.TwoStores = true
	in.Ledger.Redis = recs
	return in
}

// withRedis holds recs in Redis without declaring two stores.
func withRedis(in Input, recs ...history.RedisRecord) Input {
	in.Ledger.Redis = recs
	return in
}

// done is a completed Redis record of key storing status and charge.
func done(key string, status int, charge string) history.RedisRecord {
	return history.RedisRecord{Key: key, Fingerprint: fp("acct_1", 500), Done: true, Status: status,
		ChargeID: charge, TTL: 24 * time.Hour}
}

// claimed is an in-flight Redis claim of key with ttl left (-1: no expiry).
func claimed(key string, ttl time.Duration) history.RedisRecord {
	return history.RedisRecord{Key: key, Fingerprint: fp("acct_1", 500), TTL: ttl}
}
