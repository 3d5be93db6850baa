package history_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check/checkgen"
	"github.com/idemchaos/idemchaos/sim/history"
)

// indented is v as a run directory writes it (encoding/json, indented).
func indented(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// viaJSON decodes data into a fresh T as encoding/json's Decoder does.
func viaJSON[T any](data []byte) (T, error) {
	var v T
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&v)
	return v, err
}

// savedLedgers are ledgers as a run directory holds them: ledger.json
// without the Redis records, redis.json with them.
func savedLedgers() []history.Ledger {
	_, gen := checkgen.Generate(2_000, 4)
	return []history.Ledger{
		gen,
		{},
		{Charges: []history.Charge{}, Accounts: []history.Account{}, Redis: []history.RedisRecord{}},
		{Charges: []history.Charge{{ID: "ch_\"1\"", Account: "acct_<&>", Amount: math.MinInt64, Key: "k\u2028é", Seq: math.MaxInt64}},
			Accounts: []history.Account{{ID: "acct_1", Opening: 5, Balance: -7, Credited: 3}}, RowsAtStart: 2,
			NoAttemptIDs: true, NoChargeIDs: true, NoKeyless: true,
			Redis: []history.RedisRecord{{Key: "k", Fingerprint: "f\n", Done: true, Status: 201, ChargeID: "ch_1", TTL: -1}}},
	}
}

// TestDecodeTakesSavedLedgers: ledger.json and redis.json as a run
// directory writes them are decoded without encoding/json, to what
// encoding/json makes of them.
func TestDecodeTakesSavedLedgers(t *testing.T) {
	for i, l := range savedLedgers() {
		redis := l.Redis
		l.Redis = nil
		doc, redisDoc := indented(t, l), indented(t, redis)
		var got history.Ledger
		if !history.DecodeFast(doc, &got) {
			t.Fatalf("ledger %d left to encoding/json:\n%.400s", i, doc)
		}
		want, err := viaJSON[history.Ledger](doc)
		if err != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got, l) {
			t.Fatalf("ledger %d (%v): decoded\n%+v\nencoding/json\n%+v", i, err, got, want)
		}
		var gotRedis []history.RedisRecord
		if !history.DecodeFast(redisDoc, &gotRedis) && redis != nil {
			t.Fatalf("redis %d left to encoding/json:\n%.400s", i, redisDoc)
		}
		wantRedis, err := viaJSON[[]history.RedisRecord](redisDoc)
		if err != nil || !reflect.DeepEqual(gotRedis, wantRedis) || !reflect.DeepEqual(gotRedis, redis) {
			t.Fatalf("redis %d (%v): decoded\n%+v\nencoding/json\n%+v", i, err, gotRedis, wantRedis)
		}
	}
}

// TestDecodeLeavesTheRestToJSON: documents the decoder does not read, and
// values encoding/json would merge a document into, are left to
// encoding/json and decode exactly as it decodes them.
func TestDecodeLeavesTheRestToJSON(t *testing.T) {
	ledgers := map[string]string{
		"null":           `null`,
		"unknown field":  `{"charges":[],"extra":1}`,
		"field twice":    `{"rows_at_start":1,"rows_at_start":2}`,
		"string for int": `{"rows_at_start":"1"}`,
		"bad element":    `{"charges":[{"id":"a","seq":1.5}]}`,
		"cut short":      `{"charges":[{"id":"a"}`,
		"empty":          ``,
	}
	for name, doc := range ledgers {
		var l history.Ledger
		if history.DecodeFast([]byte(doc), &l) {
			t.Errorf("%s: taken by the decoder", name)
		}
		assertDecodesAsJSON(t, name, []byte(doc), history.Ledger{})
	}
	// encoding/json merges into what the value holds: the decoder leaves that to it
	held := history.Ledger{RowsAtStart: 3, Redis: []history.RedisRecord{{Key: "k", Status: 409}}}
	if history.DecodeFast([]byte(`{"charges":[]}`), &held) {
		t.Error("a ledger that is not zero was taken by the decoder")
	}
	assertDecodesAsJSON(t, "held ledger", []byte(`{"charges":[]}`), held)
	heldRedis := []history.RedisRecord{{Key: "k", Status: 409}}
	if history.DecodeFast([]byte(`[{"key":"j"}]`), &heldRedis) {
		t.Error("a Redis list that is not nil was taken by the decoder")
	}
	assertDecodesAsJSON(t, "held redis", []byte(`[{"key":"j"}]`), heldRedis)
	// what follows the value is not read, by either
	assertDecodesAsJSON(t, "trailing", []byte(`{"rows_at_start":1} garbage`), history.Ledger{})
	assertDecodesAsJSON(t, "trailing", []byte("[]\n[1]"), []history.RedisRecord(nil))
}

// assertDecodesAsJSON decodes data into a copy of start with Decode and
// with encoding/json's Decoder, and wants the same value and error.
func assertDecodesAsJSON[T any](t *testing.T, name string, data []byte, start T) {
	t.Helper()
	got, want := clone(t, start), clone(t, start)
	err := history.Decode(data, &got)
	wantErr := json.NewDecoder(bytes.NewReader(data)).Decode(&want)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%s: error %v, encoding/json's %v", name, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: decoded\n%+v\nencoding/json\n%+v", name, got, want)
	}
}

// clone copies v deeply (through JSON and back would lose nil slices).
func clone[T any](t *testing.T, v T) T {
	t.Helper()
	switch x := any(v).(type) {
	case history.Ledger:
		x.Charges, x.Accounts, x.Redis = cloneSlice(x.Charges), cloneSlice(x.Accounts), cloneSlice(x.Redis)
		return any(x).(T)
	case []history.RedisRecord:
		return any(cloneSlice(x)).(T)
	}
	t.Fatalf("clone: %T", v)
	return v
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T{}, s...)
}

// FuzzDecodeDocument: whatever the document, Decode gives a ledger and a
// Redis list, and an error, exactly as encoding/json's Decoder does.
func FuzzDecodeDocument(f *testing.F) {
	for _, l := range savedLedgers()[1:] {
		redis := l.Redis
		l.Redis = nil
		f.Add(indented(f, l))
		f.Add(indented(f, redis))
	}
	f.Add([]byte(`{"charges":[{"id":"a","id":"b"}]}`))
	f.Add([]byte(`[{"key":"\ud83d\ude00","ttl_ns":-1}] x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		assertDecodesAsJSON(t, "ledger", data, history.Ledger{})
		assertDecodesAsJSON(t, "redis", data, []history.RedisRecord(nil))
	})
}

// BenchmarkDecodeLedger decodes a generated ledger.json and redis.json of
// 200,000 keys: Decode, and encoding/json's Decoder (the reader before
// Decode), side by side.
func BenchmarkDecodeLedger(b *testing.B) {
	_, l := checkgen.Generate(200_000, 1)
	redis := l.Redis
	l.Redis = nil
	doc, redisDoc := indented(b, l), indented(b, redis)
	b.Run("Decode", func(b *testing.B) {
		for b.Loop() {
			var got history.Ledger
			if err := history.Decode(doc, &got); err != nil {
				b.Fatal(err)
			}
			if err := history.Decode(redisDoc, &got.Redis); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var got history.Ledger
			if err := json.NewDecoder(bytes.NewReader(doc)).Decode(&got); err != nil {
				b.Fatal(err)
			}
			if err := json.NewDecoder(bytes.NewReader(redisDoc)).Decode(&got.Redis); err != nil {
				b.Fatal(err)
			}
		}
	})
}
