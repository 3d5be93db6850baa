package rundir_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// cellFiles are the files of a saved cell, in the order FuzzReadRecord
// numbers them.
var cellFiles = []string{rundir.CellFile, rundir.PlanFile, rundir.FaultsFile, rundir.HistoryFile,
	rundir.LedgerFile, rundir.RedisFile, rundir.ObservationFile, rundir.ResultFile}

// FuzzReadRecord loads a saved cell, as `idemchaos check DIR` does, with one
// of its files (which, modulo the number of files) replaced by data: loading
// never panics and an error is one line; a cell that loads is judged without
// a panic, and saved again it loads back the same.
func FuzzReadRecord(f *testing.F) {
	valid := savedCell(f)
	for i, name := range cellFiles {
		f.Add(uint8(i), valid[name])
	}
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		defer fuzzWatchdog(fuzzLimit)()
		dir, err := os.MkdirTemp(base, "cell-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		replaced := cellFiles[int(which)%len(cellFiles)]
		for name, content := range valid {
			if name == replaced {
				content = data
			}
			if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rec, res, err := rundir.ReadRecord(dir)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		scenarios.Judge(rec)
		again := filepath.Join(dir, "again")
		if err := rundir.WritePlan(again, rec.Cell, rec.Plan); err != nil {
			t.Fatalf("save the plan of a cell that loaded: %v", err)
		}
		if err := rundir.WriteRecord(again, rec, res); err != nil {
			t.Fatalf("save a cell that loaded: %v", err)
		}
		rec2, res2, err := rundir.ReadRecord(again)
		if err != nil {
			t.Fatalf("a saved cell does not load back: %v", err)
		}
		if !reflect.DeepEqual(rec2, rec) || !reflect.DeepEqual(res2, res) {
			t.Fatalf("a saved cell loads back different:\n%+v\n%+v\n%+v\n%+v", rec2, rec, res2, res)
		}
	})
}

// savedCell saves a small finished cell (a dropped-response run of
// redis-setnx under the stripe profile: one double charge, a Redis record)
// and returns its files by name.
func savedCell(tb testing.TB) map[string][]byte {
	tb.Helper()
	c, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: "redis-setnx", Scenario: "dropped-response", Seed: 4, Profile: api.Stripe})
	if err != nil {
		tb.Fatal(err)
	}
	op := plan.Ops[0]
	yes := true
	h := history.History{Seed: 4, Quiesced: 10, ClaimTimeout: 5, KeyTTL: 1000, End: 30, Attempts: []history.Attempt{
		{Op: 0, Try: 1, ID: "o0-t1", Key: op.Key, Account: op.Account, Amount: op.Amount, Fingerprint: "f", Fault: "drop-response",
			Call: 1, Return: 5, Outcome: history.Indeterminate, Err: "EOF", Applied: &yes,
			Server: &history.ServerView{Start: 2, End: 4, Status: 201, ChargeID: "ch_1"}},
		{Op: 0, Try: 2, ID: "o0-t2", Key: op.Key, Account: op.Account, Amount: op.Amount, Fingerprint: "f",
			Call: 16, Return: 19, Status: 201, Outcome: history.Acked, ChargeID: "ch_2", Body: `{"id":"ch_2"}`, Replayed: true,
			Server: &history.ServerView{Start: 17, End: 18, Status: 201, ChargeID: "ch_2", Replayed: true}},
	}}
	l := history.Ledger{
		Charges: []history.Charge{
			{ID: "ch_1", Account: op.Account, Amount: op.Amount, Key: op.Key, AttemptID: "o0-t1", Seq: 1},
			{ID: "ch_2", Account: op.Account, Amount: op.Amount, Key: op.Key, AttemptID: "o0-t2", Seq: 2}},
		Accounts: []history.Account{{ID: op.Account, Opening: 1000, Balance: 1000 - 2*op.Amount}},
		Redis:    []history.RedisRecord{{Key: op.Key, Fingerprint: "f", Done: true, Status: 201, ChargeID: "ch_2", TTL: -1}},
	}
	rec := scenarios.Record{Cell: c, Plan: plan, Obs: scenarios.Observation{History: h, Ledger: l, Injected: 1}, Hidden: 1, Took: 7}
	dir := filepath.Join(tb.TempDir(), "cell")
	if err := rundir.WritePlan(dir, rec.Cell, rec.Plan); err != nil {
		tb.Fatal(err)
	}
	if err := rundir.WriteRecord(dir, rec, scenarios.Judge(rec)); err != nil {
		tb.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range cellFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		files[name] = b
	}
	return files
}

// fuzzLimit bounds one input; a slower one is a hang.
const fuzzLimit = 10 * time.Second

// fuzzWatchdog crashes the process when an input runs longer than limit, so
// that the fuzzer records a hang as a failing input; call the result to
// disarm it.
func fuzzWatchdog(limit time.Duration) func() bool {
	return time.AfterFunc(limit, func() { panic(fmt.Sprintf("one input ran for more than %v", limit)) }).Stop
}
