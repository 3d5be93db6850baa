package rundir_test

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// record is a small dropped-response run of none: one double charge.
func record(t *testing.T) scenarios.Record {
	t.Helper()
	c, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: "none", Scenario: "dropped-response", Seed: 4, Profile: api.IETF})
	if err != nil {
		t.Fatal(err)
	}
	op := plan.Ops[0]
	yes := true
	h := history.History{Seed: 4, Attempts: []history.Attempt{
		{Op: 0, Try: 1, ID: "o0-t1", Key: op.Key, Account: op.Account, Amount: op.Amount, Fingerprint: "f", Fault: "drop-response",
			Call: 1, Return: 5, Outcome: history.Indeterminate, Err: "EOF", Applied: &yes,
			Server: &history.ServerView{Start: 2, End: 4, Status: 201, ChargeID: "ch_1"}},
		{Op: 0, Try: 2, ID: "o0-t2", Key: op.Key, Account: op.Account, Amount: op.Amount, Fingerprint: "f",
			Call: 6, Return: 9, Status: 201, Outcome: history.Acked, ChargeID: "ch_2", Body: `{"id":"ch_2"}`,
			Server: &history.ServerView{Start: 7, End: 8, Status: 201, ChargeID: "ch_2"}},
	}}
	l := history.Ledger{
		Charges:  []history.Charge{{ID: "ch_1", Account: op.Account, Amount: op.Amount, Key: op.Key, AttemptID: "o0-t1", Seq: 1}, {ID: "ch_2", Account: op.Account, Amount: op.Amount, Key: op.Key, AttemptID: "o0-t2", Seq: 2}},
		Accounts: []history.Account{{ID: op.Account, Opening: 1000, Balance: 1000 - 2*op.Amount}},
	}
	return scenarios.Record{Cell: c, Plan: plan, Obs: scenarios.Observation{History: h, Ledger: l}}
}

func TestSavedRunJudgesTheSame(t *testing.T) {
	rec := record(t)
	res := scenarios.Judge(rec)
	if res.Verdict != scenarios.Fail || res.Anomalies["double_charge"] != 1 {
		t.Fatalf("fixture: %s %v", res.Verdict, res.Anomalies)
	}
	root := t.TempDir()
	dir := rundir.CellDir(root, rec.Cell)
	if err := rundir.WritePlan(dir, rec.Cell, rec.Plan); err != nil {
		t.Fatal(err)
	}
	if rundir.Complete(dir) {
		t.Fatal("a cell with only its plan counts as complete")
	}
	if err := rundir.WriteRecord(dir, rec, res); err != nil {
		t.Fatal(err)
	}
	dirs, err := rundir.Cells(root)
	if err != nil || len(dirs) != 1 || dirs[0] != dir || !rundir.Complete(dir) {
		t.Fatalf("cells %v, %v", dirs, err)
	}
	back, saved, err := rundir.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(saved, res) {
		t.Fatalf("saved result differs:\n%+v\n%+v", saved, res)
	}
	if again := scenarios.Judge(back); !reflect.DeepEqual(again, res) {
		t.Fatalf("re-judged result differs:\n%+v\n%+v", again, res)
	}
}

func TestPlanFilesAreByteIdentical(t *testing.T) {
	rec := record(t)
	a, b := t.TempDir(), t.TempDir()
	for _, root := range []string{a, b} {
		if err := rundir.WritePlan(rundir.CellDir(root, rec.Cell), rec.Cell, rec.Plan); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{rundir.CellFile, rundir.PlanFile, rundir.FaultsFile} {
		x, _ := os.ReadFile(filepath.Join(rundir.CellDir(a, rec.Cell), name))
		y, _ := os.ReadFile(filepath.Join(rundir.CellDir(b, rec.Cell), name))
		if len(x) == 0 || string(x) != string(y) {
			t.Fatalf("%s differs between two writes of the same seed", name)
		}
	}
}

func TestDamagedRunDirectories(t *testing.T) {
	if _, err := rundir.Cells(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("a missing directory was accepted")
	}
	if _, err := rundir.Cells(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no cells") {
		t.Fatalf("an empty directory: %v", err)
	}
	rec := record(t)
	root := t.TempDir()
	dir := rundir.CellDir(root, rec.Cell)
	_ = rundir.WritePlan(dir, rec.Cell, rec.Plan)
	_ = rundir.WriteRecord(dir, rec, scenarios.Judge(rec))
	hist := filepath.Join(dir, rundir.HistoryFile)
	raw, _ := os.ReadFile(hist)
	_ = os.WriteFile(hist, raw[:len(raw)/2], 0o644)
	if _, _, err := rundir.ReadRecord(dir); err == nil || !strings.Contains(err.Error(), rundir.HistoryFile) {
		t.Fatalf("a truncated history: %v", err)
	}
}

func TestWriteAtomicLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	if err := rundir.WriteAtomic(path, func(w io.Writer) error { _, err := w.Write([]byte("1")); return err }); err != nil {
		t.Fatal(err)
	}
	failed := rundir.WriteAtomic(filepath.Join(dir, "y.json"), func(io.Writer) error { return os.ErrInvalid })
	entries, _ := os.ReadDir(dir)
	if failed == nil || len(entries) != 1 || entries[0].Name() != "x.json" {
		t.Fatalf("after a failed write: err %v, entries %v", failed, entries)
	}
}

// TestDiffersReadsAMissingAnomalyAsZero: a result saved before the checker
// knew an anomaly has no count for it; judged again it is 0 and the cell
// does not differ, while any real change of a count or verdict does.
func TestDiffersReadsAMissingAnomalyAsZero(t *testing.T) {
	saved := scenarios.Result{Verdict: scenarios.Fail, Anomalies: map[check.Anomaly]int{check.DoubleCharge: 2}}
	now := scenarios.Result{Verdict: scenarios.Fail, Anomalies: map[check.Anomaly]int{check.DoubleCharge: 2, check.HeldDuplicate: 0}}
	if (rundir.Checked{Saved: saved, Now: now}).Differs() {
		t.Error("a count missing from the saved result, 0 now, differs")
	}
	if (rundir.Checked{Saved: now, Now: saved}).Differs() {
		t.Error("a count of 0 missing from the new result differs")
	}
	now.Anomalies[check.HeldDuplicate] = 1
	if !(rundir.Checked{Saved: saved, Now: now}).Differs() {
		t.Error("a new finding of an anomaly the saved result did not know does not differ")
	}
	now.Anomalies[check.HeldDuplicate], now.Verdict = 0, scenarios.Pass
	if !(rundir.Checked{Saved: saved, Now: now}).Differs() {
		t.Error("another verdict does not differ")
	}
	if !(rundir.Checked{Saved: saved, Now: scenarios.Result{Verdict: scenarios.Fail}}).Differs() {
		t.Error("a count gone to nothing does not differ")
	}
}

// TestMalformedInjectionRefused: a saved plan's in-target fault is read
// where the plan is decoded, so a cell whose plan.json holds a malformed
// one does not load, with one line naming the file and the value; the
// well-formed plan it was made from loads back with its injection.
func TestMalformedInjectionRefused(t *testing.T) {
	rec := record(t)
	cut := api.Injection{Action: api.PGCut, Point: api.BeforeCommit}
	rec.Plan.Ops[0].Tries[0].Inject = cut
	dir := rundir.CellDir(t.TempDir(), rec.Cell)
	if err := rundir.WritePlan(dir, rec.Cell, rec.Plan); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteRecord(dir, rec, scenarios.Judge(rec)); err != nil {
		t.Fatal(err)
	}
	back, _, err := rundir.ReadRecord(dir)
	if err != nil || back.Plan.Ops[0].Tries[0].Inject != cut || !reflect.DeepEqual(back.Plan, rec.Plan) {
		t.Fatalf("the well-formed plan loads back as %+v, %v", back.Plan.Ops[0].Tries, err)
	}
	path := filepath.Join(dir, rundir.PlanFile)
	good, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(good), `"inject": "pg-cut@before-commit"`) {
		t.Fatalf("plan.json without the injection as text (%v):\n%s", err, good)
	}
	for _, bad := range []string{"pg-cut@mid-request", "melt@before-commit", "delay:1h@before-commit", "pg-cut"} {
		t.Run(bad, func(t *testing.T) {
			plan := strings.Replace(string(good), `"pg-cut@before-commit"`, `"`+bad+`"`, 1)
			if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := rundir.ReadRecord(dir)
			if err == nil {
				t.Fatal("a plan with a malformed injection loaded")
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, `"`+bad+`"`) || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q: want one line naming %s and %q", msg, path, bad)
			}
		})
	}
}
