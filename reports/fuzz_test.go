package reports_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
)

// fuzzDocRenderers are what `idemchaos report` renders a results document with.
var fuzzDocRenderers = map[string]func(io.Writer, results.Document) error{
	"table": func(w io.Writer, d results.Document) error {
		return reports.WriteTable(w, d.Results, reports.View{Width: 80})
	},
	"json":     results.WriteJSON,
	"junit":    reports.WriteJUnit,
	"markdown": reports.WriteMarkdown,
	"html":     reports.WriteHTML,
}

// fuzzBenchRenderers are what it renders a bench document with.
var fuzzBenchRenderers = map[string]func(io.Writer, results.Bench) error{
	"table":    reports.WriteBenchTable,
	"json":     results.WriteBenchJSON,
	"markdown": reports.WriteBenchMarkdown,
	"html":     reports.WriteBenchHTML,
}

// FuzzReadDocument reads any file as `idemchaos report FILE` does (a bench
// document or a results document): it never panics, an error is one line,
// a document that reads renders in every format, and its canonical JSON
// reads back and writes out byte for byte the same.
func FuzzReadDocument(f *testing.F) {
	for _, doc := range []func(io.Writer) error{
		func(w io.Writer) error { return results.WriteJSON(w, fixture()) },
		func(w io.Writer) error { return results.WriteBenchJSON(w, benchFixture()) },
	} {
		var b bytes.Buffer
		if err := doc(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzWatchdog(fuzzLimit)()
		if results.IsBench(data) {
			fuzzBench(t, data)
			return
		}
		doc, err := results.ReadJSON(bytes.NewReader(data))
		if err != nil {
			fuzzOneLine(t, err)
			return
		}
		for name, render := range fuzzDocRenderers {
			if err := render(io.Discard, doc); err != nil {
				fuzzOneLine(t, err)
				if name == "json" {
					t.Fatalf("a document that reads does not write: %v", err)
				}
			}
		}
		var once, twice bytes.Buffer
		_ = results.WriteJSON(&once, doc)
		back, err := results.ReadJSON(bytes.NewReader(once.Bytes()))
		if err != nil {
			t.Fatalf("canonical JSON does not read back: %v\n%s", err, once.Bytes())
		}
		if err := results.WriteJSON(&twice, back); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("canonical JSON differs when written twice (%v):\n%s\n%s", err, once.Bytes(), twice.Bytes())
		}
	})
}

func fuzzBench(t *testing.T, data []byte) {
	doc, err := results.ReadBench(bytes.NewReader(data))
	if err != nil {
		fuzzOneLine(t, err)
		return
	}
	for name, render := range fuzzBenchRenderers {
		if err := render(io.Discard, doc); err != nil {
			fuzzOneLine(t, err)
			if name == "json" {
				t.Fatalf("a bench document that reads does not write: %v", err)
			}
		}
	}
	var once, twice bytes.Buffer
	_ = results.WriteBenchJSON(&once, doc)
	back, err := results.ReadBench(bytes.NewReader(once.Bytes()))
	if err != nil {
		t.Fatalf("bench JSON does not read back: %v\n%s", err, once.Bytes())
	}
	if err := results.WriteBenchJSON(&twice, back); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
		t.Fatalf("bench JSON differs when written twice (%v):\n%s\n%s", err, once.Bytes(), twice.Bytes())
	}
}

// fuzzLimit bounds one input; a slower one is a hang.
const fuzzLimit = 10 * time.Second

// fuzzWatchdog crashes the process when an input runs longer than limit, so
// that the fuzzer records a hang as a failing input; call the result to
// disarm it.
func fuzzWatchdog(limit time.Duration) func() bool {
	return time.AfterFunc(limit, func() { panic(fmt.Sprintf("one input ran for more than %v", limit)) }).Stop
}

func fuzzOneLine(t *testing.T, err error) {
	t.Helper()
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Fatalf("error is not one line: %q", err)
	}
}
