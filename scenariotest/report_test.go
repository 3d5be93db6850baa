package scenariotest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
)

// racyShop makes the check-then-act mistake in memory: it looks the key
// up, charges (20 ms), then records the answer, with nothing claimed in
// between, so duplicates in flight together all charge.
type racyShop struct {
	mu      sync.Mutex
	answers map[string][]byte
	charges map[string][]history.Charge // by key
	n       int
}

func (s *racyShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := history.Charge{Key: r.Header.Get("Idempotency-Key")}
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil || c.Key == "" {
		http.Error(w, `{"code":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	answer, done := s.answers[c.Key]
	s.mu.Unlock()
	if !done {
		time.Sleep(20 * time.Millisecond)
		s.mu.Lock()
		s.n++
		c.ID = fmt.Sprintf("ch_%d", s.n)
		s.charges[c.Key] = append(s.charges[c.Key], c)
		answer, _ = json.Marshal(map[string]any{"id": c.ID, "account": c.Account, "amount": c.Amount})
		s.answers[c.Key] = answer
		s.mu.Unlock()
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(answer)
}

func (s *racyShop) ledger(_ context.Context, keys []string) ([]history.Charge, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []history.Charge
	for _, k := range keys {
		out = append(out, s.charges[k]...)
	}
	return out, nil
}

func racyTarget() Target {
	s := &racyShop{answers: map[string][]byte{}, charges: map[string][]history.Charge{}}
	return Target{Handler: s, Ledger: LedgerFunc(s.ledger), LedgerInfo: LedgerInfo{ChargeIDs: true}}
}

// recorder is a testing.TB that keeps what a report says.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// TestFailingRunReadsShort: against a racy service (hundreds of double
// charges and replay mismatches), a failing run is one short error that
// says what the HTML report says first, then a few findings of each
// anomaly, money first, how many more, and how to see them all; under -v
// every finding, and the scenarios that could not run with why.
func TestFailingRunReadsShort(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	o, err := racyTarget().run(t.Context(), scenarios.Names(), "")
	if err != nil {
		t.Fatal(err)
	}
	findings := 0
	for _, r := range o.results {
		findings += len(r.Findings)
	}
	if o.results[0].Anomalies[check.DoubleCharge] < 2*shownEach || findings < 10*shownEach || len(o.skipped) == 0 {
		t.Fatalf("%d findings, anomalies %v, %d skipped: the racy shop should double-charge often and skip some scenarios",
			findings, o.results[0].Anomalies, len(o.skipped))
	}
	short := &recorder{TB: t}
	report(short, o, "", false)
	if len(short.errors) != 1 || len(short.logs) > 0 {
		t.Fatalf("%d errors and %d logs; want one error and no log", len(short.errors), len(short.logs))
	}
	text := short.errors[0]
	lines := strings.Split(text, "\n")
	first := func(s string) int { return strings.Index(text, s) }
	switch {
	case len(lines) > 70:
		t.Errorf("%d lines for %d findings; want a short summary:\n%s", len(lines), findings, text)
	case !strings.HasPrefix(lines[0], "Your service broke in "):
		t.Errorf("it does not start with the verdict:\n%s", text)
	case !strings.Contains(text, "What to do first: fix double_charge in concurrent-duplicates: key "):
		t.Errorf("it does not name the gravest anomaly first:\n%s", text)
	case first("\ndouble_charge: ") < 0 || first("\nmismatch_executed: ") < first("\ndouble_charge: ") ||
		first("\nreplay_mismatch: ") < first("\nmismatch_executed: "):
		t.Errorf("the anomalies that cost money (double charges, then changed payloads charged) do not come before the replay mismatches:\n%s", text)
	case !strings.Contains(text, "  and ") || !strings.Contains(text, "more findings: go test -v prints every one") ||
		!strings.Contains(text, "Set Target.Out to a directory"):
		t.Errorf("it does not count the rest or say how to see them:\n%s", text)
	case !strings.Contains(text, " scenarios could not run against it (go test -v says what each needs)."):
		t.Errorf("it does not count the scenarios that could not run:\n%s", text)
	}
	verbose := &recorder{TB: t}
	report(verbose, o, "", true)
	if n := strings.Count(verbose.errors[0], "\n  - "); n != findings || len(verbose.logs) != len(o.skipped) {
		t.Errorf("verbose: %d findings shown of %d, %d skips logged of %d", n, findings, len(verbose.logs), len(o.skipped))
	}
	saved := &recorder{TB: t}
	report(saved, o, out, false)
	if !strings.Contains(strings.Join(strings.Fields(saved.errors[0]), " "), "The run is saved in "+out+
		"; its HTML report, with the timelines of the offending keys: "+filepath.Join(out, "report.html")) {
		t.Errorf("a saved run does not say where:\n%s", saved.errors[0])
	}
}

// TestOutKeepsTheRun: Target.Out holds the run as the command line's
// --out does, with its HTML report; the next run replaces it; a directory
// that holds anything else is refused.
func TestOutKeepsTheRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	tg := racyTarget()
	tg.Out = out
	for range 2 {
		if _, err := tg.run(t.Context(), []string{"missing-key", "forced-race"}, out); err != nil {
			t.Fatal(err)
		}
		doc, err := rundir.ReadDocument(out)
		if err != nil || len(doc.Results) != 1 || len(doc.Skipped) != 1 {
			t.Fatalf("results.json: %v, %+v", err, doc)
		}
		page, err := os.ReadFile(filepath.Join(out, rundir.ReportFile))
		if err != nil || !strings.Contains(string(page), "missing-key") {
			t.Fatalf("report.html: %v", err)
		}
		if cells, err := rundir.Cells(out); err != nil || len(cells) != 1 {
			t.Fatalf("cells %v, %v; want the one that ran", cells, err)
		}
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.run(t.Context(), []string{"missing-key"}, other); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a directory that is no run: err %v; want it refused", err)
	}
}
