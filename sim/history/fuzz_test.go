package history_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// FuzzReadJSONL: reading any history.jsonl never panics, an error is one
// line, and whatever reads back writes out to a file that reads back the
// same and writes out byte for byte the same.
func FuzzReadJSONL(f *testing.F) {
	var b bytes.Buffer
	if err := history.WriteJSONL(&b, sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(`{"v":1,"seed":3,"attempts":0}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzWatchdog(fuzzLimit)()
		h, err := history.ReadJSONL(bytes.NewReader(data))
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		var once bytes.Buffer
		if err := history.WriteJSONL(&once, h); err != nil {
			t.Fatalf("write what was read: %v", err)
		}
		back, err := history.ReadJSONL(bytes.NewReader(once.Bytes()))
		if err != nil {
			t.Fatalf("read what was written: %v\n%s", err, once.Bytes())
		}
		if !reflect.DeepEqual(back, h) {
			t.Fatalf("round trip differs:\n%+v\n%+v", back, h)
		}
		var twice bytes.Buffer
		if err := history.WriteJSONL(&twice, back); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("writing twice differs (%v):\n%s\n%s", err, once.Bytes(), twice.Bytes())
		}
	})
}

// fuzzLimit bounds one input; a slower one is a hang.
const fuzzLimit = 10 * time.Second

// fuzzWatchdog crashes the process when an input runs longer than limit, so
// that the fuzzer records a hang as a failing input; call the result to
// disarm it.
func fuzzWatchdog(limit time.Duration) func() bool {
	return time.AfterFunc(limit, func() { panic(fmt.Sprintf("one input ran for more than %v", limit)) }).Stop
}
