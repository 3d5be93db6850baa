package scenariotest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenariotest"
	"github.com/idemchaos/idemchaos/sim/history"
)

// recorder is a testing.TB that keeps the errors a report raises.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }

func (r *recorder) Logf(string, ...any) {}

func TestShopWithoutIdempotencyFailsWithEvidence(t *testing.T) {
	for _, sc := range []string{"concurrent-duplicates", "dropped-response"} {
		res, err := scenariotest.Check(t.Context(), target(newShop(false)), sc)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != scenarios.Fail || res.Anomalies["double_charge"] == 0 {
			t.Fatalf("%s: verdict %s, anomalies %v; want a failing double_charge", sc, res.Verdict, res.Anomalies)
		}
		rec := &recorder{TB: t}
		scenariotest.Report(rec, res)
		if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "\ndouble_charge: ") || !strings.Contains(rec.errors[0], "\n  - "+sc+": key ") {
			t.Errorf("%s: test errors %q; want one, with the double charges", sc, rec.errors)
		}
	}
}

func TestCorrectShopReportsNothing(t *testing.T) {
	res, err := scenariotest.Check(t.Context(), target(newShop(true)), "dropped-response")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	scenariotest.Report(rec, res)
	if res.Verdict != scenarios.Pass || len(rec.errors) > 0 {
		t.Fatalf("verdict %s, errors %v; want a clean pass", res.Verdict, rec.errors)
	}
}

func TestNeedsInternalsIsASkipError(t *testing.T) {
	_, err := scenariotest.Check(t.Context(), target(newShop(true)), "forced-race")
	var skip *scenarios.SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "gate") {
		t.Fatalf("err %v; want a SkipError naming the gate", err)
	}
}

func TestTargetNeedsALedger(t *testing.T) {
	_, err := scenariotest.Check(t.Context(), scenariotest.Target{Handler: newShop(true)}, "missing-key")
	if err == nil || !strings.Contains(err.Error(), "Ledger is required") {
		t.Fatalf("err %v; want Ledger is required", err)
	}
}

// TestRemoteURLNeedsAllowRemote: the go test API keeps the command line's
// rule: load and faults go to loopback only unless the test allows more.
func TestRemoteURLNeedsAllowRemote(t *testing.T) {
	none := scenariotest.LedgerFunc(func(context.Context, []string) ([]history.Charge, error) { return nil, nil })
	_, err := scenariotest.Check(t.Context(), scenariotest.Target{URL: "http://10.1.2.3:80", Ledger: none}, "missing-key")
	if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Fatalf("error %v; want the loopback rule", err)
	}
}

// TestRunThatRanNothingFails: a test whose scenarios all need what the
// target lacks cannot pass; it says what they need.
func TestRunThatRanNothingFails(t *testing.T) {
	rec := &recorder{TB: t}
	scenariotest.Run(rec, target(newShop(true)), "forced-race", "slow-charge")
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "nothing was tested") {
		t.Fatalf("errors %q; want one saying nothing was tested", rec.errors)
	}
}

// TestFailureSaysHowToRunItAgain: no command line that cannot work, the
// seed to set instead, under the scenario's name.
func TestFailureSaysHowToRunItAgain(t *testing.T) {
	rec := &recorder{TB: t}
	scenariotest.Run(rec, target(newShop(false)), "dropped-response")
	all := strings.Join(rec.errors, "\n")
	if !strings.Contains(all, "\ndropped-response failed: ") || !strings.Contains(all, "Re-run it: set Target.Seed = 1 and run scenario dropped-response again") ||
		strings.Contains(all, "idemchaos run") {
		t.Fatalf("errors:\n%s\nwant the scenario and the seed to set, no CLI line", all)
	}
}

// stamped renders every 2xx of h anew with a fresh "created" member, as a
// service that builds its answers (replays too) on the fly does.
type stamped struct {
	h http.Handler
	n atomic.Int64
}

func (s *stamped) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code/100 == 2 && bytes.HasPrefix(body, []byte("{")) {
		body = append([]byte(fmt.Sprintf(`{"created":%d,`, 1_700_000_000+s.n.Add(1))), body[1:]...)
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// TestReplayComparedAsTheTargetSays: a shop whose answers carry a fresh
// timestamp fails dropped-response byte for byte, though its client sees
// one 2xx per key (the replay probes show the difference), and passes
// when the target says to compare as JSON without that field.
func TestReplayComparedAsTheTargetSays(t *testing.T) {
	shop := newShop(true)
	tg := target(shop)
	tg.Handler = &stamped{h: shop}
	res, err := scenariotest.Check(t.Context(), tg, "dropped-response")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Fail || res.Anomalies["replay_mismatch"] == 0 || res.Anomalies["double_charge"] > 0 {
		t.Fatalf("verdict %s, anomalies %v; want replay_mismatch alone", res.Verdict, res.Anomalies)
	}
	tg.Replay = scenariotest.ReplayCompare{JSON: true, Ignore: []string{"created"}}
	if res, err = scenariotest.Check(t.Context(), tg, "dropped-response"); err != nil || res.Verdict != scenarios.Pass {
		t.Fatalf("as JSON ignoring created: verdict %s, anomalies %v, err %v; want a pass", res.Verdict, res.Anomalies, err)
	}
	tg.Replay = scenariotest.ReplayCompare{Ignore: []string{"created"}}
	if res, err = scenariotest.Check(t.Context(), tg, "dropped-response"); err != nil || res.Verdict != scenarios.Pass {
		t.Fatalf("ignoring created (as JSON, the default): verdict %s, anomalies %v, err %v; want a pass", res.Verdict, res.Anomalies, err)
	}
	tg.ReplayBytes = true
	if _, err := scenariotest.Check(t.Context(), tg, "dropped-response"); err == nil || !strings.Contains(err.Error(), "JSON comparison") {
		t.Fatalf("fields to ignore byte for byte: err %v", err)
	}
}

// respaced re-renders every 2xx but a key's first with a space after each
// colon, as a JSONB column gives its stored value back: the same JSON in
// other bytes.
type respaced struct {
	h    http.Handler
	mu   sync.Mutex
	seen map[string]bool
}

func (s *respaced) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code/100 == 2 && s.again(r.Header.Get("Idempotency-Key")) {
		body = bytes.ReplaceAll(body, []byte(`":`), []byte(`": `))
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// again reports whether key got a 2xx before.
func (s *respaced) again(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.seen[key]
	s.seen[key] = true
	return seen
}

// TestByteDriftIsADeviation: a shop whose replays hold the same JSON in
// other bytes passes by default, the drift shown as a deviation; byte for
// byte (ReplayBytes) it is a replay_mismatch.
func TestByteDriftIsADeviation(t *testing.T) {
	shop := newShop(true)
	tg := target(shop)
	tg.Handler = &respaced{h: shop, seen: map[string]bool{}}
	res, err := scenariotest.Check(t.Context(), tg, "dropped-response")
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != scenarios.Pass || len(res.Deviations) == 0 || res.Deviations[0].Anomaly != "replay_mismatch" ||
		!strings.Contains(res.Deviations[0].Detail, "the same JSON") {
		t.Fatalf("verdict %s, anomalies %v, deviations %v; want a pass with the drift as a deviation", res.Verdict, res.Anomalies, res.Deviations)
	}
	tg.ReplayBytes = true
	if res, err = scenariotest.Check(t.Context(), tg, "dropped-response"); err != nil || res.Verdict != scenarios.Fail || res.Anomalies["replay_mismatch"] == 0 {
		t.Fatalf("byte for byte: verdict %s, anomalies %v, err %v; want replay_mismatch", res.Verdict, res.Anomalies, err)
	}
}

// TestShapeFromOpenAPI: the request is read from the service's OpenAPI
// description; a description whose key header the shop does not read
// sends every request without a key, and the run cannot pass.
func TestShapeFromOpenAPI(t *testing.T) {
	const spec = "../examples/openapi/paymentd.yaml"
	tg := target(newShop(true))
	tg.OpenAPI = spec
	if res, err := scenariotest.Check(t.Context(), tg, "dropped-response"); err != nil || res.Verdict != scenarios.Pass {
		t.Fatalf("with the paymentd description: verdict %s, anomalies %v, err %v; want a pass", res.Verdict, res.Anomalies, err)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other-key.yaml")
	if err := os.WriteFile(other, bytes.Replace(data, []byte("name: Idempotency-Key"), []byte("name: X-Idempotency-Token"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	tg.OpenAPI = other
	if res, err := scenariotest.Check(t.Context(), tg, "dropped-response"); err != nil || res.Verdict == scenarios.Pass {
		t.Fatalf("with the key in another header: verdict %s, err %v; want no pass", res.Verdict, err)
	}
	tg.Operation = "getAccount"
	if _, err := scenariotest.Check(t.Context(), tg, "dropped-response"); err == nil || !strings.Contains(err.Error(), "operation getAccount cannot be mapped") {
		t.Fatalf("an operation that is no charge: err %v", err)
	}
}

// TestSkipsSpeakTheTestsWords: a scenario the target cannot run says what
// to set on Target, never a command-line flag; with a TopUp set,
// business-refusal is no longer skipped for the lack of one.
func TestSkipsSpeakTheTestsWords(t *testing.T) {
	tg := target(newShop(true))
	_, err := scenariotest.Check(t.Context(), tg, "business-refusal")
	var skip *scenariotest.SkipError
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "Target.TopUp") || strings.Contains(skip.Reason, "--") {
		t.Fatalf("business-refusal without a top-up: %v; want a skip that names Target.TopUp and no flag", err)
	}
	_, err = scenariotest.Check(t.Context(), tg, "db-fault-mid-request")
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "Target.PostgresProxy") || strings.Contains(skip.Reason, "--") {
		t.Fatalf("db-fault-mid-request without a proxy: %v; want a skip that names Target.PostgresProxy and no flag", err)
	}
	tg.TopUp = &scenariotest.TopUp{Path: "/v1/accounts/{{.Account}}/top-ups"}
	if _, err = scenariotest.Check(t.Context(), tg, "business-refusal"); errors.As(err, &skip) && strings.Contains(skip.Reason, "fund an account") {
		t.Fatalf("business-refusal with a top-up: still skipped for the lack of one: %v", err)
	}
}
