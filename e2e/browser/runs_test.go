package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenariotest"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// matrixStrategies fail every fault scenario between them, redis-getset
// under the forced-race gate, redis-sticky on both store cuts, and pass
// others: each kind of cell and each fault shows.
var matrixStrategies = []string{"none", "redis-getset", "redis-sticky"}

// latencies gathers the finished cells' latencies, as the CLI does.
type latencies struct{ l *results.Latencies }

func (latencies) Start(scenarios.Cell) {}
func (w latencies) Finish(r scenarios.Result, rec scenarios.Record) {
	w.l.Add(r.Strategy, rec.Obs.History.Attempts)
}

// runMatrix runs the strategies under every scenario of the catalog, one
// seed, two cells at a time on databases of their own.
func runMatrix(t *testing.T, strategies []string) results.Document {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var execs []engine.Executor
	for _, b := range builtins(ctx, t, 2) {
		execs = append(execs, b)
	}
	var cells []scenarios.Cell
	for _, st := range strategies {
		for _, sc := range singleServer() {
			cells = append(cells, scenarios.Cell{Strategy: st, Scenario: sc, Seed: 1, Profile: api.IETF})
		}
	}
	started, lat := time.Now(), latencies{results.NewLatencies()}
	rs, err := engine.RunAll(ctx, execs, cells, engine.Batch{Watch: lat})
	if err != nil {
		t.Fatal(err)
	}
	return results.NewDocument(rs, lat.l, "matrix", started)
}

// builtins are n runners of the built-in strategies, each on a database
// of its own, behind one embedded Toxiproxy.
func builtins(ctx context.Context, t *testing.T, n int) []*engine.Builtin {
	t.Helper()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tp.Close() })
	out := make([]*engine.Builtin, n)
	for k := range out {
		b, err := engine.NewBuiltin(ctx, engine.Env{PostgresDSN: provisiontest.Database(t, services), RedisURL: services.RedisURL, Toxiproxy: tp})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		out[k] = b
	}
	return out
}

// forgetful is a user's service with no idempotency layer: every request
// charges, whatever its key.
type forgetful struct {
	mu      sync.Mutex
	charges []history.Charge
}

func (f *forgetful) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req api.ChargeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	id := "ch_" + strconv.Itoa(len(f.charges)+1)
	f.charges = append(f.charges, history.Charge{ID: id, Key: r.Header.Get("Idempotency-Key"), Account: req.Account,
		Amount: req.Amount, AttemptID: r.Header.Get(api.HeaderAttempt)})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "account": req.Account, "amount": req.Amount})
}

// Charges is its ledger: every charge it made (a forgetful serves one run).
func (f *forgetful) Charges(context.Context, []string) ([]history.Charge, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]history.Charge(nil), f.charges...), nil
}

// serviceScenarios run against the forgetful service: it breaks under two,
// and the payload-mismatch one shows its status contract.
var serviceScenarios = []string{"dropped-response", "concurrent-duplicates", "payload-mismatch"}

// runService runs the forgetful service through scenariotest, as a team's
// own test would, into a document of a user's service.
func runService(t *testing.T) results.Document {
	t.Helper()
	started := time.Now()
	var rs []scenarios.Result
	for _, sc := range serviceScenarios {
		f := &forgetful{}
		tg := scenariotest.Target{Handler: f, Ledger: f, LedgerInfo: scenariotest.LedgerInfo{ChargeIDs: true, AttemptIDs: true}}
		res, err := scenariotest.Check(t.Context(), tg, sc)
		if err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		rs = append(rs, res)
	}
	return results.NewDocument(rs, results.NewLatencies(), "matrix", started)
}

// singleServer are the scenarios the matrix page shows: all but those on
// the replicated Postgres, which a Session routes to a topology of its own
// (their pages are the same cells), and those no built-in strategy runs.
func singleServer() []string {
	var out []string
	for _, sc := range scenarios.Catalog() {
		if !sc.Replicated && !sc.ServiceOnly { // redis-failover runs on a Builtin: a topology of its own per run
			out = append(out, sc.Name)
		}
	}
	return out
}
