package reports_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/reports"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./reports -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			t.Fatalf("%s differs at line %d (run go test ./reports -update and review the diff)\n got: %q\nwant: %q",
				path, i+1, line(g, i), line(w, i))
		}
	}
}

func line(ls []string, i int) string {
	if i < len(ls) {
		return ls[i]
	}
	return "<end of file>"
}

// anoms is a checker's count map: every name present, most of them zero.
func anoms(kv ...any) map[check.Anomaly]int {
	m := map[check.Anomaly]int{}
	for _, n := range check.Anomalies() {
		m[n] = 0
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[check.Anomaly(kv[i].(string))] = kv[i+1].(int)
	}
	return m
}

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func res(st, sc string, seed uint64, v scenarios.Verdict, ok bool, expected ...check.Anomaly) scenarios.Result {
	r := scenarios.Result{Strategy: st, Scenario: sc, Seed: seed, Profile: "ietf", Replicas: 2, Verdict: v,
		AsExpected: ok, Expected: expected, Anomalies: anoms(), Requests: 6, Faults: 1,
		DurationMS: int64(100 + 10*seed), Repro: scenarios.Repro(st, sc, seed, "ietf")}
	if sc == "dropped-response" { // its coverage: every seed of redis-setnx, the first of the others
		r.Exercise, r.Exercised = "a retry after a charge that committed unheard", seed == 1 || st == "redis-setnx"
	}
	return r
}

// droppedTimeline: the response to a1 is dropped after the commit, the retry
// a2 charges again (strategy none).
func droppedTimeline() scenarios.Timeline {
	return scenarios.Timeline{Key: "k-1",
		Attempts: []history.Attempt{
			{Op: 0, Try: 1, ID: "a1", Key: "k-1", Account: "acc-1", Amount: 1250, Fingerprint: "fp1", Fault: "drop-response",
				Replica: 1, Call: ms(1), Return: ms(31), Outcome: history.Indeterminate, Err: "context deadline exceeded",
				Server: &history.ServerView{Replica: 1, Start: ms(2), End: ms(6), Status: 201, ChargeID: "ch-1"}},
			{Op: 0, Try: 2, ID: "a2", Key: "k-1", Account: "acc-1", Amount: 1250, Fingerprint: "fp1",
				Replica: 1, Call: ms(32), Return: ms(40), Status: 201, Outcome: history.Acked, ChargeID: "ch-2", Body: `{"id":"ch-2"}`,
				Server: &history.ServerView{Replica: 1, Start: ms(33), End: ms(38), Status: 201, ChargeID: "ch-2"}},
		},
		Charges: []history.Charge{
			{ID: "ch-1", Account: "acc-1", Amount: 1250, Key: "k-1", AttemptID: "a1", Seq: 1},
			{ID: "ch-2", Account: "acc-1", Amount: 1250, Key: "k-1", AttemptID: "a2", Seq: 2},
		}}
}

// desyncTimeline: the Redis write after the Postgres commit is lost, the
// retry on the other replica charges again, Redis ends naming ch-8 only.
func desyncTimeline() scenarios.Timeline {
	applied := true
	return scenarios.Timeline{Key: "k-7",
		Attempts: []history.Attempt{
			{Op: 3, Try: 1, ID: "a7", Key: "k-7", Account: "acc-2", Amount: 990, Fingerprint: "fp7", Fault: "redis-cut-after-commit",
				Replica: 1, Call: ms(10), Return: ms(24), Status: 500, Outcome: history.Indeterminate, Applied: &applied,
				Body: `{"error":"store"}`, Server: &history.ServerView{Replica: 1, Start: ms(11), End: ms(23), Status: 500}},
			{Op: 3, Try: 2, ID: "a8", Key: "k-7", Account: "acc-2", Amount: 990, Fingerprint: "fp7", Replica: 2,
				Call: ms(30), Return: ms(37), Status: 201, Outcome: history.Acked, ChargeID: "ch-8", Body: `{"id":"ch-8"}`,
				Server: &history.ServerView{Replica: 2, Start: ms(31), End: ms(36), Status: 201, ChargeID: "ch-8"}},
			{Op: 3, Try: 3, ID: "a9", Key: "k-7", Account: "acc-2", Amount: 990, Fingerprint: "fp7", Replica: 1,
				Call: ms(40), Return: ms(42), Status: 201, Outcome: history.Acked, ChargeID: "ch-8", Replayed: true,
				Body: `{"id":"ch-8"}`, Server: &history.ServerView{Replica: 1, Start: ms(40.5), End: ms(41), Status: 201, ChargeID: "ch-8", Replayed: true}},
		},
		Charges: []history.Charge{
			{ID: "ch-7", Account: "acc-2", Amount: 990, Key: "k-7", AttemptID: "a7", Seq: 4},
			{ID: "ch-8", Account: "acc-2", Amount: 990, Key: "k-7", AttemptID: "a8", Seq: 5},
		},
		Redis: &history.RedisRecord{Key: "k-7", Fingerprint: "fp7", Done: true, Status: 201, ChargeID: "ch-8", TTL: 24 * time.Hour}}
}

// fixture is a small matrix covering every kind of cell: caught as
// declared, not caught, pass, inconclusive and failing not as declared.
func fixture() results.Document {
	var rs []scenarios.Result
	dr, rf := "dropped-response", "redis-fault-after-commit"
	for seed := uint64(1); seed <= 2; seed++ {
		r := res("none", dr, seed, scenarios.Fail, true, "double_charge")
		r.Anomalies, r.Overcharged = anoms("double_charge", 1), 1250
		r.Findings = []check.Finding{{Anomaly: "double_charge", Key: "k-1", Account: "acc-1", Money: 1250,
			Attempts: []string{"a1", "a2"}, Charges: []string{"ch-1", "ch-2"},
			Detail: "key k-1: 2 charges | amounts *12.50* and *12.50*"}}
		if seed == 1 {
			r.Timelines = []scenarios.Timeline{droppedTimeline()}
		}
		rs = append(rs, r)
	}
	for seed := uint64(1); seed <= 2; seed++ {
		rs = append(rs, res("none", rf, seed, scenarios.Pass, false, "double_charge"))
	}
	for seed := uint64(1); seed <= 2; seed++ {
		rs = append(rs, res("redis-setnx", dr, seed, scenarios.Pass, true))
	}
	for seed := uint64(1); seed <= 2; seed++ {
		r := res("redis-setnx", rf, seed, scenarios.Fail, true, "double_charge", "store_desync")
		r.Anomalies, r.Overcharged = anoms("double_charge", 1, "store_desync", int(seed)), 990
		r.Findings = []check.Finding{
			{Anomaly: "double_charge", Key: "k-7", Money: 990, Charges: []string{"ch-7", "ch-8"}, Detail: "key k-7: 2 charges"},
			{Anomaly: "store_desync", Key: "k-7", Charges: []string{"ch-7"}, Detail: "Redis names ch-8; Postgres also holds ch-7"},
		}
		if seed == 1 {
			r.Timelines = []scenarios.Timeline{desyncTimeline()}
		} else {
			for i := range 3 {
				r.Findings = append(r.Findings, check.Finding{Anomaly: "store_desync", Key: "k-" + string(rune('a'+i)),
					Detail: "Redis holds an in-flight claim for a charged key"})
			}
		}
		rs = append(rs, r)
	}
	rs = append(rs, res("pg-tx", dr, 1, scenarios.Pass, true))
	r := res("pg-tx", dr, 2, scenarios.Inconclusive, false)
	r.Assumptions = []string{"the fault did not fire: no response was dropped"}
	rs = append(rs, r)
	r = res("pg-tx", rf, 1, scenarios.Fail, false)
	r.Anomalies = anoms("status_contract", 1)
	r.Findings = []check.Finding{{Anomaly: "status_contract", Key: "k-3", Attempts: []string{"a5"},
		Detail: "a concurrent duplicate got 500 <Internal> & \"no 409\""}}
	rs = append(rs, r, res("pg-tx", rf, 2, scenarios.Pass, true))
	return results.Document{SchemaVersion: results.SchemaVersion, Tool: "idemchaos", Command: "matrix", Profile: "ietf",
		Seeds: []uint64{1, 2}, Started: time.Date(2025, 11, 29, 19, 0, 0, 0, time.UTC), DurationMS: 4321,
		Summary: results.Summarize(rs), Results: rs}
}

// render runs one renderer into a byte slice.
func render(t *testing.T, f func(io.Writer, results.Document) error, doc results.Document) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// renderers are the renderers that take a whole document, by golden file name.
var renderers = map[string]func(io.Writer, results.Document) error{
	"matrix.junit.xml.golden": reports.WriteJUnit,
	"matrix.md.golden":        reports.WriteMarkdown,
	"matrix.html.golden":      reports.WriteHTML,
	"matrix.table.golden": func(w io.Writer, d results.Document) error {
		return reports.WriteTable(w, d.Results, reports.View{})
	},
	"matrix.table-80.golden": func(w io.Writer, d results.Document) error {
		return reports.WriteTable(w, d.Results, reports.View{Width: 80})
	},
}

func TestGoldenFiles(t *testing.T) {
	for name, f := range renderers {
		t.Run(name, func(t *testing.T) { golden(t, name, render(t, f, fixture())) })
	}
}

// TestRenderersAreDeterministic renders twice, and once more from the
// document as saved to and read back from JSON: byte-identical every time.
func TestRenderersAreDeterministic(t *testing.T) {
	var saved bytes.Buffer
	if err := results.WriteJSON(&saved, fixture()); err != nil {
		t.Fatal(err)
	}
	loaded, err := results.ReadJSON(&saved)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range renderers {
		first, second, fromFile := render(t, f, fixture()), render(t, f, fixture()), render(t, f, loaded)
		if !bytes.Equal(first, second) || !bytes.Equal(first, fromFile) {
			t.Errorf("%s: output differs between renderings of the same document", name)
		}
	}
}
