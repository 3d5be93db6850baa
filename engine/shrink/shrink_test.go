package shrink_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/engine/shrink"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/spec"
)

// attempts bounds the requests a scenario file can send: every request of
// every key, every try.
func attempts(s spec.Spec) int {
	return s.Traffic.Keys * (1 + s.Traffic.Duplicates) * s.Retries.MaxTries
}

// TestShrinkRetryStormRedisGetset: redis-getset's retry-storm failure (40
// keys, up to 6 tries each) shrinks to at most 2 keys and a handful of
// attempts, which fails with a double charge on each of K re-runs, and
// again when its file is read back and run: within K runs, as the
// shrinker's own are (the smallest failing file is a race at its edge; in
// one: a retry sent 220 ms after its first try must check before that
// try's commit, delayed 300 ms: a stall of 80 ms lets one run pass).
func TestShrinkRetryStormRedisGetset(t *testing.T) {
	r := newRunner(t)
	const k = 3
	var lines []string
	o, err := shrink.Run(context.Background(), shrink.Config{Exec: r, K: k, Timeout: 4 * time.Minute,
		Cell:     scenarios.Cell{Strategy: "redis-getset", Scenario: "retry-storm", Seed: 1},
		Progress: func(l string) { lines = append(lines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d candidates, %d runs in %s (%s); kept %v", o.Tried, o.Runs, o.Took.Round(time.Millisecond), o.Stopped, o.Kept)
	if o.Start.Traffic.Keys != 40 || o.Anomaly != check.DoubleCharge {
		t.Errorf("start: %d keys, anomaly %s", o.Start.Traffic.Keys, o.Anomaly)
	}
	if o.Spec.Traffic.Keys > 2 || attempts(o.Spec) > 12 || len(o.Kept) == 0 {
		t.Errorf("shrunk to %d keys, %d attempts at most: %+v", o.Spec.Traffic.Keys, attempts(o.Spec), o.Spec)
	}
	if o.Result.Verdict != scenarios.Fail || o.Result.Anomalies[check.DoubleCharge] == 0 || o.Record.Obs.History.Attempts == nil {
		t.Errorf("the shrunk run: %s %v", o.Result.Verdict, o.Result.Anomalies)
	}
	file, err := o.Spec.YAML("shrunk")
	if err != nil {
		t.Fatal(err)
	}
	back, err := spec.Parse(file, scenarios.Names())
	if err != nil {
		t.Fatalf("%v\n%s", err, file)
	}
	var res scenarios.Result
	for run := range k {
		res, _, err = engine.Run(context.Background(), r, scenarios.Cell{Strategy: "redis-getset", Scenario: back.Name, Custom: &back, Seed: 1}, "")
		if err != nil {
			t.Fatal(err)
		}
		if res.Anomalies[check.DoubleCharge] > 0 {
			break
		}
		t.Logf("the shrunk file, read back, run %d of %d: %s %v", run+1, k, res.Verdict, res.Anomalies)
	}
	if res.Anomalies[check.DoubleCharge] == 0 {
		t.Errorf("the shrunk file, read back and run %d times: %s %v\n%s", k, res.Verdict, res.Anomalies, file)
	}
	t.Logf("shrunk:\n%s", file)
}
