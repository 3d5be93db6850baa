package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// dropped is a client's run of one operation whose first try's answer was
// dropped after the commit, retried under retryKey; charges is what the
// ledger holds for it.
func dropped(name string, seed uint64, retryKey string, charges int) scenarios.ClientRecord {
	plan := workload.ClientDefaults
	plan.Seed = seed
	plan.Ops = []workload.ClientOp{{ID: "op-01", Account: "acct-op-01", Amount: 1500, Currency: "usd",
		Faults: []workload.FrontFault{workload.DropAfterCommit}}}
	rec := scenarios.ClientRecord{Name: name, Shape: "json", Profile: api.OptionalKey, Plan: plan}
	rec.Run.Ops = scenarios.Operations(plan)
	rec.Run.Received = []history.Received{
		{ID: "r1", Op: "op-01", Try: 1, Key: "k1", Body: "b", Fault: string(workload.DropAfterCommit), Charge: "ch_1", Arrived: 1e6},
		{ID: "r2", Op: "op-01", Try: 2, Key: retryKey, Body: "b", Status: 201, Charge: "ch_1", Arrived: 300e6},
	}
	rec.Run.Told = []history.Told{{Op: "op-01", Outcome: history.Succeeded}}
	for i := range charges {
		rec.Run.Charges = append(rec.Run.Charges, history.Charge{ID: "ch_" + string(rune('1'+i)), Key: "k1", Account: "acct-op-01", Amount: 1500})
	}
	return rec
}

// TestClientTableFoldsEachClient: a client's seeds fold into its row (the
// anomalies it showed, on how many seeds, after which fault; its class),
// its verdict line is what the golden file pins, and what no finding
// explains is said, as is a row that proved nothing or never ran.
func TestClientTableFoldsEachClient(t *testing.T) {
	clients := []Client{{Name: "newkey", Shape: "json"}, {Name: "keeper", Shape: "json"}, {Name: "absent", Shape: "stripe"}}
	recs := []scenarios.ClientRecord{dropped("newkey", 2, "k2", 2), dropped("keeper", 1, "k1", 1), dropped("newkey", 1, "k3", 2),
		dropped("stranger", 1, "k1", 1)}
	tbl := NewClientTable(clients, 5, recs)
	if len(tbl.Rows) != 3 || tbl.Seeds != 2 {
		t.Fatalf("%d rows, %d seeds; want one per client, and the 2 seeds its runs hold", len(tbl.Rows), tbl.Seeds)
	}
	nk := tbl.Rows[0]
	if nk.Class != BreaksMoney || len(nk.Results) != 2 || nk.Results[0].Seed != 1 || nk.Shown[check.RetryNewKey] != 2 ||
		!slices.Equal(nk.After[check.RetryNewKey], []workload.FrontFault{workload.DropAfterCommit}) {
		t.Errorf("newkey: %s, %d results, shown %v, after %v", nk.Class, len(nk.Results), nk.Shown, nk.After)
	}
	if keeper := tbl.Rows[1]; keeper.Class != Inconclusive || len(keeper.Anomalies()) != 0 || len(keeper.Unproved) == 0 {
		t.Errorf("keeper: %s, anomalies %v, unproved %q; want inconclusive (the plan's other faults never met)", keeper.Class,
			keeper.Anomalies(), keeper.Unproved)
	}
	var lines []string
	for _, v := range tbl.Verdicts() {
		lines = append(lines, v.String())
	}
	if want := []string{"newkey client/json: breaks money (retry_new_key)", "keeper client/json: inconclusive"}; !slices.Equal(lines, want) {
		t.Errorf("verdicts %q; want %q", lines, want)
	}
	un := strings.Join(tbl.Unexplained(), "\n")
	for _, want := range []string{"newkey: retry_new_key", "keeper: inconclusive (no request met the faults", "absent: not run"} {
		if !strings.Contains(un, want) {
			t.Errorf("unexplained has no %q:\n%s", want, un)
		}
	}
}

// TestCompareClientsIsExact: a changed class, an anomaly gone or new, a
// client not run or not pinned: each is a difference.
func TestCompareClientsIsExact(t *testing.T) {
	want := []Verdict{{Row: "a", Scenario: "client/json", Class: BreaksMoney, Anomalies: []string{"retry_new_key"}},
		{Row: "b", Scenario: "client/stripe", Class: Pass}}
	if d := CompareClients(want, want); len(d) != 0 {
		t.Errorf("the same verdicts differ: %q", d)
	}
	got := []Verdict{{Row: "a", Scenario: "client/json", Class: BreaksMoney, Anomalies: []string{"retry_new_key", "no_backoff"}},
		{Row: "c", Scenario: "client/json", Class: Pass}}
	d := strings.Join(CompareClients(want, got), "\n")
	for _, w := range []string{"+ a client/json: breaks money (retry_new_key, no_backoff)", "- b client/stripe: pass\n+ (not run)",
		"- (not pinned)\n+ c client/json: pass"} {
		if !strings.Contains(d, w) {
			t.Errorf("no %q in the difference:\n%s", w, d)
		}
	}
}

// TestClientCatalog: every client names a driver the engine can build,
// a shape the API serves, and what makes its key; names are unique.
func TestClientCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Clients {
		if seen[c.Name] {
			t.Errorf("%s twice", c.Name)
		}
		seen[c.Name] = true
		if _, err := api.ShapeNamed(c.Shape); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if c.Kind != Go && c.Kind != Node || c.Dir == "" || c.Main == "" || c.Key == "" || c.Version == "" || c.Setup == "" {
			t.Errorf("%s: kind %q, dir %q, main %q, key %q, version %q, setup %q", c.Name, c.Kind, c.Dir, c.Main, c.Key, c.Version, c.Setup)
		}
	}
	if _, err := LookupClients([]string{"stripe-node", "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("an unknown client: %v", err)
	}
}
