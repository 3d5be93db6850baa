package check

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check/checkgen"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// genInput is the generated history of keys keys (checkgen), judged as a
// two-store target under the ietf profile.
func genInput(keys int, seed uint64) Input {
	h, l := checkgen.Generate(keys, seed)
	return Input{History: h, Ledger: l, Profile: api.IETF, TwoStores: true}
}

func TestGenerated(t *testing.T) {
	in := genInput(25_000, 1)
	if n := len(in.History.Attempts); n != 125_000 {
		t.Fatalf("%d attempts, want 125000", n)
	}
	seen := make(map[string]bool, len(in.History.Attempts))
	for _, a := range in.History.Attempts {
		if seen[a.ID] {
			t.Fatalf("attempt id %s is used twice", a.ID)
		}
		seen[a.ID] = true
	}
	r := Run(in)
	assertCounts(t, r, map[Anomaly]int{DoubleCharge: 5, LostAck: 5, MismatchExecuted: 5, Balance: 1,
		StuckKey: 5, CachedError: 20, StoreDesync: 10})
	// keys 7, 5007, ... charge 100 + i%50 twice: i%50 is 7 for each.
	if r.Overcharged != 5*107 {
		t.Errorf("Overcharged = %d, want %d", r.Overcharged, 5*107)
	}
	// keys 29, 5029, ... lost the Redis write of a charge of 100 + 29; keys
	// 7, 5007, ... charged twice and Redis names the second charge.
	var desync int64
	for _, f := range r.Findings {
		assertDetail(t, f)
		if f.Anomaly == StoreDesync {
			desync += f.Money
		}
		if f.Anomaly == StuckKey && len(f.Attempts) != 2 {
			t.Errorf("stuck_key evidence %v, want the probe and the attempt that left the claim", f.Attempts)
		}
	}
	if desync != 5*129+5*107 {
		t.Errorf("store_desync money = %d, want %d", desync, 5*129+5*107)
	}
}

func BenchmarkRun(b *testing.B) {
	benchRun(b, genInput(25_000, 1))
}

// BenchmarkRunStripe is the same history judged under a profile that
// requires the replay header (stripe's, with ietf's 422 for a changed
// payload, which the generated target answers): every 2xx without the
// header is looked up in the ledger.
func BenchmarkRunStripe(b *testing.B) {
	in := genInput(25_000, 1)
	in.Profile = api.Stripe
	in.Profile.Mismatch = 422
	for i := range in.History.Attempts { // the generated replays say so
		a := &in.History.Attempts[i]
		a.Replayed = a.Replayed || a.Outcome == history.Acked && a.Server != nil && a.Server.Replayed
	}
	benchRun(b, in)
}

// BenchmarkRunJSON judges replays rendered anew (a fresh "at" in every
// 2xx body) as JSON, ignoring that field: every replay's body is parsed.
func BenchmarkRunJSON(b *testing.B) {
	in := genInput(25_000, 1)
	for i := range in.History.Attempts {
		if a := &in.History.Attempts[i]; a.Outcome == history.Acked {
			a.Body = `{"at":` + strconv.Itoa(i) + `,` + a.Body[1:]
		}
	}
	in.Replay = ReplayCompare{JSON: true, Ignore: []string{"at"}}
	benchRun(b, in)
}

func benchRun(b *testing.B, in Input) {
	n := len(in.History.Attempts)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	runs := 0
	var r Report
	for b.Loop() {
		r = Run(in)
		runs++
	}
	runtime.ReadMemStats(&after)
	if !r.Failed() {
		b.Fatal("the generated history should hold anomalies")
	}
	b.ReportMetric(float64(n*runs)/b.Elapsed().Seconds(), "attempts/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n*runs), "allocs/attempt")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n*runs), "B/attempt")
}
