package history_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

func sample() history.History {
	yes := true
	return history.History{Seed: 7, Quiesced: time.Second, ClaimTimeout: 250 * time.Millisecond, KeyTTL: time.Hour, End: 2 * time.Second,
		Attempts: []history.Attempt{
			{Op: 0, Try: 1, ID: "o0-t1", Key: "k", Account: "a", Amount: 100, Fingerprint: "f", Call: 1, Return: 2,
				Outcome: history.Indeterminate, Err: "EOF", Applied: &yes, Server: &history.ServerView{Start: 1, End: 2, Status: 201, ChargeID: "ch_1"}},
			{Op: 0, Try: 2, ID: "o0-t2", Key: "k", Status: 201, Outcome: history.Acked, ChargeID: "ch_1", Body: `{"id":"ch_1"}`, Replayed: true},
		}}
}

func TestJSONLRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := history.ReadJSONL(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sample()) {
		t.Fatalf("round trip:\n%+v\nwant\n%+v", got, sample())
	}
}

func TestJSONLRejectsDamage(t *testing.T) {
	var b bytes.Buffer
	_ = history.WriteJSONL(&b, sample())
	full := b.String()
	lines := strings.SplitAfter(full, "\n")
	cases := map[string]string{
		"empty":       "",
		"cut short":   lines[0] + lines[1],
		"bad line":    lines[0] + "{not json\n",
		"new version": strings.Replace(full, `"v":1`, `"v":9`, 1),
		"bad header":  "[]\n",
	}
	for name, in := range cases {
		if _, err := history.ReadJSONL(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// BenchmarkWriteJSONL measures history encoding per attempt.
func BenchmarkWriteJSONL(b *testing.B) {
	h := sample()
	for len(h.Attempts) < 10000 {
		h.Attempts = append(h.Attempts, h.Attempts[len(h.Attempts)%2])
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		_ = history.WriteJSONL(&buf, h)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h.Attempts)), "ns/attempt")
}
