package rundir_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check/checkgen"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestReadRecordAsEncodingJSON: a saved cell of a generated history
// (20,000 attempts, its ledger and Redis records) reads back exactly as
// encoding/json alone reads its files (the reader before the decoders),
// and judges the same.
func TestReadRecordAsEncodingJSON(t *testing.T) {
	c, plan, err := scenarios.Prepare(scenarios.Cell{Strategy: "redis-setnx", Scenario: "retry-storm", Seed: 1, Profile: api.IETF})
	if err != nil {
		t.Fatal(err)
	}
	h, l := checkgen.Generate(4_000, 2)
	rec := scenarios.Record{Cell: c, Plan: plan, Obs: scenarios.Observation{History: h, Ledger: l}, Took: time.Minute}
	dir := rundir.CellDir(t.TempDir(), c)
	if err := rundir.WritePlan(dir, c, plan); err != nil {
		t.Fatal(err)
	}
	saved := scenarios.Judge(rec)
	if err := rundir.WriteRecord(dir, rec, saved); err != nil {
		t.Fatal(err)
	}
	got, gotRes, err := rundir.ReadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}

	var want scenarios.Record
	var wantRes scenarios.Result
	for file, v := range map[string]any{rundir.ObservationFile: &want, rundir.PlanFile: &want.Plan,
		rundir.LedgerFile: &want.Obs.Ledger, rundir.ResultFile: &wantRes} {
		decodeFile(t, filepath.Join(dir, file), v)
	}
	decodeFile(t, filepath.Join(dir, rundir.RedisFile), &want.Obs.Ledger.Redis)
	want.Obs.History = historyByJSON(t, filepath.Join(dir, rundir.HistoryFile))

	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotRes, wantRes) {
		t.Fatal("the saved cell reads back otherwise than by encoding/json")
	}
	if len(got.Obs.History.Attempts) != 20_000 || len(got.Obs.Ledger.Redis) == 0 {
		t.Fatalf("read %d attempts, %d Redis records", len(got.Obs.History.Attempts), len(got.Obs.Ledger.Redis))
	}
	if now := scenarios.Judge(got); !reflect.DeepEqual(now.Anomalies, saved.Anomalies) || now.Verdict != saved.Verdict {
		t.Fatalf("judged again: %s %v, saved %s %v", now.Verdict, now.Anomalies, saved.Verdict, saved.Anomalies)
	}
}

func decodeFile(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// historyByJSON reads history.jsonl with encoding/json, line by line.
func historyByJSON(t *testing.T, path string) history.History {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var hd struct {
		Seed         uint64        `json:"seed"`
		Quiesced     time.Duration `json:"quiesced_ns"`
		ClaimTimeout time.Duration `json:"claim_timeout_ns"`
		KeyTTL       time.Duration `json:"key_ttl_ns"`
		End          time.Duration `json:"end_ns"`
	}
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &hd) != nil {
		t.Fatal("no header")
	}
	h := history.History{Seed: hd.Seed, Quiesced: hd.Quiesced, ClaimTimeout: hd.ClaimTimeout, KeyTTL: hd.KeyTTL, End: hd.End}
	for sc.Scan() {
		var a history.Attempt
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		h.Attempts = append(h.Attempts, a)
	}
	return h
}
