package clientmode_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// run runs the example client with args on seed and judges it.
func run(t *testing.T, shape api.Shape, requireKey bool, seed uint64, args ...string) (scenarios.ClientRecord, scenarios.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out strings.Builder
	rec, err := clientmode.Run(ctx, clientmode.Config{Command: fetchClient(t, args...), Environ: os.Environ(), Shape: shape, RequireKey: requireKey,
		Seed: seed, Ops: 6, Bound: 2 * time.Minute, Services: services, Output: &out})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	res := scenarios.JudgeClient(rec)
	t.Logf("seed %d %v: %s %v %v; the client said:\n%s", seed, args, res.Verdict, nonZero(res.Anomalies), res.Assumptions, out.String())
	return rec, res
}

func nonZero(m map[check.Anomaly]int) map[check.Anomaly]int {
	out := map[check.Anomaly]int{}
	for a, n := range m {
		if n > 0 {
			out[a] = n
		}
	}
	return out
}

func seeds(t *testing.T) []uint64 {
	if testing.Short() {
		return []uint64{1, 2}
	}
	return []uint64{1, 2, 3, 4, 5}
}

// TestKeptKeyPassesNewKeyPerTryIsCaught is the two clients: one
// that keeps its key through every fault passes, exercised, on every seed,
// and one that makes a key per try is caught moving money twice.
func TestKeptKeyPassesNewKeyPerTryIsCaught(t *testing.T) {
	for _, seed := range seeds(t) {
		t.Run(fmt.Sprintf("seed %d keeps its key", seed), func(t *testing.T) {
			t.Parallel()
			rec, res := run(t, api.JSONShape, false, seed)
			if res.Verdict != scenarios.Pass || !res.Exercised {
				t.Errorf("seed %d: %s (exercised %v): %v %v", seed, res.Verdict, res.Exercised, nonZero(res.Anomalies), res.Assumptions)
			}
			if n := len(rec.Run.Received); n <= len(rec.Plan.Ops) {
				t.Errorf("seed %d: %d requests for %d operations: the faults made no retry", seed, n, len(rec.Plan.Ops))
			}
		})
		t.Run(fmt.Sprintf("seed %d new key per try", seed), func(t *testing.T) {
			t.Parallel()
			_, res := run(t, api.JSONShape, false, seed, "--mistake", "new-key-per-try")
			if res.Verdict != scenarios.Fail || res.Anomalies[check.RetryNewKey] == 0 || res.Overcharged == 0 {
				t.Errorf("seed %d: %s %v, overcharged %d: want retry_new_key with money moved twice", seed, res.Verdict,
					nonZero(res.Anomalies), res.Overcharged)
			}
		})
	}
}

func TestStripeShapeKeptKeyPasses(t *testing.T) {
	rec, res := run(t, api.StripeShape, false, 7)
	if res.Verdict != scenarios.Pass {
		t.Fatalf("%s %v %v", res.Verdict, nonZero(res.Anomalies), res.Assumptions)
	}
	if body := rec.Run.Received[0].Body; !strings.Contains(body, "customer=acct-op-") {
		t.Errorf("received %q: want the form body Stripe's shape reads", body)
	}
}

// TestEachMistakeIsCaught runs the example client with each of its
// mistakes and wants the anomaly that names it. A mistake of timing may
// not show on a loaded machine (a client that retries at once, slowed past
// the 50 ms that tell a back-off); such a run tries two seeds more.
func TestEachMistakeIsCaught(t *testing.T) {
	cases := []struct {
		mistake    string
		requireKey bool
		want       []check.Anomaly
	}{
		{"no-key", false, []check.Anomaly{check.RetryWithoutKey}},
		{"no-backoff", false, []check.Anomaly{check.NoBackoff, check.RetryAfterIgnored}},
		{"gives-up", false, []check.Anomaly{check.ToldFailedCharged}},
		{"timestamp-body", false, []check.Anomaly{check.BodyChanged}},
		{"key-per-minute", false, []check.Anomaly{check.KeyReused}},
		{"no-key,retry-everything", true, []check.Anomaly{check.RetryAfterRefusal}},
	}
	for _, c := range cases {
		t.Run(c.mistake, func(t *testing.T) {
			t.Parallel()
			var missing []check.Anomaly
			for seed := uint64(3); seed < 6; seed++ {
				_, res := run(t, api.JSONShape, c.requireKey, seed, "--mistake", c.mistake)
				missing = missing[:0]
				for _, a := range c.want {
					if res.Verdict != scenarios.Fail || res.Anomalies[a] == 0 {
						missing = append(missing, a)
					}
				}
				if len(missing) == 0 || !slices.Contains(missing, check.NoBackoff) {
					break
				}
			}
			if len(missing) > 0 {
				t.Errorf("%s: the run lacks %v", c.mistake, missing)
			}
		})
	}
}
