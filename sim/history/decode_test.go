package history_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check/checkgen"
	"github.com/idemchaos/idemchaos/sim/history"
)

// everyField is an attempt with every field set, strings that need
// escaping (quotes, HTML, control characters, U+2028, non-ASCII) and
// integers at their bounds.
func everyField() history.Attempt {
	no := false
	return history.Attempt{Op: math.MaxInt, Try: -3, ID: "a\"1\\", Key: "k<&>\u2028\u00e9\U0001F600", Account: "acct_0",
		Amount: math.MinInt64, Fingerprint: "f\t\n\r\b\f\x01", Replica: 2, Fault: "db-cut", Call: -1, Return: math.MaxInt64,
		Status: 503, Outcome: history.Indeterminate, ChargeID: "ch_9", Body: `{"id":"ch_9","note":"</script>"}`,
		Replayed: true, Err: "read: connection reset", Reused: true, Hidden: true, ReplayProbe: true, HoldProbe: true,
		Late:   &history.Late{At: 7, Status: -201, ChargeID: "ch_\"9", Replayed: true},
		Server: &history.ServerView{Replica: 1, Start: 5, End: 9, Status: 201, ChargeID: "ch_9", Replayed: true}, Applied: &no}
}

// attemptLines is what WriteJSONL writes for h, one attempt per line.
func attemptLines(t *testing.T, h history.History) [][]byte {
	t.Helper()
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
	return lines[1:]
}

// TestDecoderTakesEveryWrittenLine: every attempt line WriteJSONL writes
// (generated histories with their anomalies, an attempt with every field)
// is decoded without encoding/json, to what encoding/json makes of it.
func TestDecoderTakesEveryWrittenLine(t *testing.T) {
	h, _ := checkgen.Generate(2_000, 3)
	h.Attempts = append(h.Attempts, everyField(), history.Attempt{}, sample().Attempts[0], sample().Attempts[1])
	lines := attemptLines(t, h)
	if len(lines) != len(h.Attempts) {
		t.Fatalf("%d lines for %d attempts", len(lines), len(h.Attempts))
	}
	for i, line := range lines {
		var fast, slow history.Attempt
		if !history.DecodeAttempt(line, &fast) {
			t.Fatalf("line %d left to encoding/json: %s", i, line)
		}
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) || !reflect.DeepEqual(fast, h.Attempts[i]) {
			t.Fatalf("line %d: decoded\n%+v\nencoding/json\n%+v\nwritten\n%+v", i, fast, slow, h.Attempts[i])
		}
	}
}

// TestDecoderTakesWhitespace: JSON's whitespace between tokens, which
// WriteJSONL does not write, is read as encoding/json reads it.
func TestDecoderTakesWhitespace(t *testing.T) {
	line := []byte(" {\t\"op\" : 1 ,\r\n\"id\":\"a b\", \"server\" : { \"status\" : -201 , \"replayed\" : true } , \"applied\" : false } \r")
	var fast, slow history.Attempt
	if !history.DecodeAttempt(line, &fast) {
		t.Fatalf("left to encoding/json: %q", line)
	}
	if err := json.Unmarshal(line, &slow); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, slow) || fast.Server.Status != -201 || fast.ID != "a b" {
		t.Fatalf("decoded\n%+v\nencoding/json\n%+v", fast, slow)
	}
}

// TestDecoderLeavesTheRestToJSON: lines WriteJSONL does not write but
// encoding/json reads (or refuses) are not taken by the decoder, and
// ReadJSONL reads them exactly as encoding/json does.
func TestDecoderLeavesTheRestToJSON(t *testing.T) {
	lines := map[string]string{
		"unknown field":    `{"op":1,"extra":[1,2],"id":"a"}`,
		"other case":       `{"OP":4,"Id":"a"}`,
		"field twice":      `{"op":1,"op":2}`,
		"server twice":     `{"server":{"status":201},"server":{"replica":1}}`,
		"null server":      `{"server":null,"key":"k"}`,
		"null string":      `{"key":null}`,
		"surrogate pair":   `{"key":"\ud83d\ude00"}`,
		"lone surrogate":   `{"key":"\ud83d"}`,
		"invalid utf-8":    "{\"key\":\"a\xffb\"}",
		"float":            `{"amount":1.5}`,
		"exponent":         `{"amount":1e3}`,
		"overflow":         `{"amount":9223372036854775808}`,
		"leading zero":     `{"op":01}`,
		"string for int":   `{"op":"1"}`,
		"not an object":    `[1]`,
		"null":             `null`,
		"trailing garbage": `{"op":1}x`,
		"bad escape":       `{"key":"\q"}`,
		"control char":     "{\"key\":\"a\tb\"}",
	}
	for name, line := range lines {
		var a history.Attempt
		if history.DecodeAttempt([]byte(line), &a) {
			t.Errorf("%s: taken by the decoder: %s", name, line)
		}
		var want history.Attempt
		wantErr := json.Unmarshal([]byte(line), &want)
		in := `{"v":1,"seed":1,"attempts":1}` + "\n" + line + "\n"
		h, err := history.ReadJSONL(strings.NewReader(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: ReadJSONL error %v, encoding/json error %v", name, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(h.Attempts[0], want) {
			t.Errorf("%s: read\n%+v\nencoding/json\n%+v", name, h.Attempts[0], want)
		}
	}
}

// FuzzDecodeAttempt: whatever line the decoder takes, encoding/json
// decodes too, to the same attempt.
func FuzzDecodeAttempt(f *testing.F) {
	h := sample()
	h.Attempts = append(h.Attempts, everyField())
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(b.Bytes(), []byte("\n"))[1:] {
		f.Add(line)
	}
	f.Add([]byte(`{"op":1,"op":2}`))
	f.Add([]byte(`{"key":"\u00e9\ud83d\ude00"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast history.Attempt
		if !history.DecodeAttempt(line, &fast) {
			return
		}
		var slow history.Attempt
		if err := json.Unmarshal(line, &slow); err != nil {
			t.Fatalf("decoder took a line encoding/json refuses (%v): %q", err, line)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: decoded\n%+v\nencoding/json\n%+v", line, fast, slow)
		}
	})
}

// BenchmarkReadJSONL reads a generated history of 100,000 attempts back:
// ReadJSONL, and each line by encoding/json alone (the reader before the
// decoder), side by side.
func BenchmarkReadJSONL(b *testing.B) {
	h, _ := checkgen.Generate(20_000, 1)
	var file bytes.Buffer
	if err := history.WriteJSONL(&file, h); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(file.Bytes(), []byte("\n")), []byte("\n"))[1:]
	perAttempt := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h.Attempts)), "ns/attempt")
	}
	b.Run("ReadJSONL", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := history.ReadJSONL(bytes.NewReader(file.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
		perAttempt(b)
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, line := range lines {
				var a history.Attempt
				if err := json.Unmarshal(line, &a); err != nil {
					b.Fatal(err)
				}
			}
		}
		perAttempt(b)
	})
}

// TestReadLongHistory: a history longer than the first reservation is
// read whole, into one reservation of the header's count, and a file
// holding more or fewer attempts than its header says is refused.
func TestReadLongHistory(t *testing.T) {
	file := func(header, lines int) string {
		var b strings.Builder
		b.WriteString(`{"v":1,"seed":1,"attempts":` + strconv.Itoa(header) + "}\n")
		for i := range lines {
			b.WriteString(`{"op":` + strconv.Itoa(i) + "}\n")
		}
		return b.String()
	}
	h, err := history.ReadJSONL(strings.NewReader(file(300_001, 300_001)))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Attempts) != 300_001 || cap(h.Attempts) != 300_001 {
		t.Fatalf("read %d attempts into room for %d, want 300001 in 300001", len(h.Attempts), cap(h.Attempts))
	}
	for i, a := range h.Attempts {
		if a.Op != i {
			t.Fatalf("attempt %d has op %d", i, a.Op)
		}
	}
	for _, c := range [][2]int{{100_000, 100_001}, {300_000, 300_001}, {300_001, 300_000}, {0, 1}} {
		if _, err := history.ReadJSONL(strings.NewReader(file(c[0], c[1]))); err == nil || !strings.Contains(err.Error(), "header says") {
			t.Errorf("header %d, %d lines: error %v", c[0], c[1], err)
		}
	}
}

// TestReadGivesEachAttemptItsOwn: the server views and Applied flags read
// back are allocated together, yet no two attempts share one.
func TestReadGivesEachAttemptItsOwn(t *testing.T) {
	h, _ := checkgen.Generate(2_000, 5)
	yes := true
	for i := range h.Attempts {
		h.Attempts[i].Applied = &yes
	}
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, h); err != nil {
		t.Fatal(err)
	}
	got, err := history.ReadJSONL(&b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Attempts {
		a := &got.Attempts[i]
		a.Server.Start, *a.Applied = time.Duration(i), i%2 == 0
	}
	for i, a := range got.Attempts {
		if a.Server.Start != time.Duration(i) || *a.Applied != (i%2 == 0) {
			t.Fatalf("attempt %d shares its server view or flag with another", i)
		}
	}
}
