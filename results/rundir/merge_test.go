package rundir_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// matrixCells is a small matrix in its unsharded order: strategy, then
// scenario, then seed.
func matrixCells() []scenarios.Cell {
	var cells []scenarios.Cell
	for _, st := range []string{"redis-getset", "pg-tx"} {
		for _, sc := range []string{"missing-key", "dropped-response"} {
			for seed := uint64(1); seed <= 2; seed++ {
				cells = append(cells, scenarios.Cell{Strategy: st, Scenario: sc, Seed: seed, Profile: api.IETF, Replicas: 1})
			}
		}
	}
	return cells
}

// finish saves a finished cell under root, with a history of one answered
// attempt whose latency depends on the cell, and returns its result and
// attempts.
func finish(t *testing.T, root string, c scenarios.Cell) (scenarios.Result, []history.Attempt) {
	t.Helper()
	c, plan, err := scenarios.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	op := plan.Ops[0]
	call := time.Millisecond
	ret := call + time.Duration(len(c.Strategy)*int(c.Seed))*time.Millisecond
	h := history.History{Seed: c.Seed, Attempts: []history.Attempt{{Op: 0, Try: 1, ID: "o0-t1", Key: op.Key, Account: op.Account,
		Amount: op.Amount, Fingerprint: "f", Call: call, Return: ret, Status: 201, Outcome: history.Acked, ChargeID: "ch_1",
		Server: &history.ServerView{Start: call, End: ret, Status: 201, ChargeID: "ch_1"}}}}
	l := history.Ledger{Charges: []history.Charge{{ID: "ch_1", Account: op.Account, Amount: op.Amount, Key: op.Key, AttemptID: "o0-t1", Seq: 1}},
		Accounts: []history.Account{{ID: op.Account, Opening: 1000, Balance: 1000 - op.Amount}}}
	rec := scenarios.Record{Cell: c, Plan: plan, Obs: scenarios.Observation{History: h, Ledger: l}}
	res := scenarios.Judge(rec)
	dir := rundir.CellDir(root, c)
	if err := rundir.WritePlan(dir, c, plan); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteRecord(dir, rec, res); err != nil {
		t.Fatal(err)
	}
	return res, h.Attempts
}

// writeShard saves shard s of the run of all (its share of the cells) in a
// new run directory, as matrix --shard does.
func writeShard(t *testing.T, s scenarios.Shard, all []scenarios.Cell, started time.Time) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shard-"+strings.ReplaceAll(s.String(), "/", "-of-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rundir.Mark(dir); err != nil {
		t.Fatal(err)
	}
	lat := results.NewLatencies()
	rs := []scenarios.Result{}
	for _, c := range s.Select(all) {
		res, attempts := finish(t, dir, c)
		lat.Add(res.Strategy, attempts)
		rs = append(rs, res)
	}
	doc := results.NewDocument(rs, lat, "matrix", started)
	doc.DurationMS = int64(100 * s.K)
	doc.Shard = scenarios.MatrixShard(s, all)
	writeDoc(t, dir, doc)
	return dir
}

func writeDoc(t *testing.T, dir string, doc results.Document) {
	t.Helper()
	if err := rundir.WriteAtomic(filepath.Join(dir, rundir.DocumentFile), func(w io.Writer) error {
		return results.WriteJSON(w, doc)
	}); err != nil {
		t.Fatal(err)
	}
}

func readDoc(t *testing.T, dir string) results.Document {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, rundir.DocumentFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := results.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func merge(t *testing.T, dirs ...string) (string, *rundir.Shards) {
	t.Helper()
	m, err := rundir.ReadShards(dirs)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := m.CheckOut(out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rundir.Mark(out); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	return out, m
}

// TestMergeIsTheWholeRun: three shards, given in any order, merge into
// the unsharded order, with the latencies of every cell, the earliest start
// and the longest duration; the cells are copied byte for byte and check
// again; the same shards give the same bytes.
func TestMergeIsTheWholeRun(t *testing.T) {
	all := matrixCells()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	dirs := []string{
		writeShard(t, scenarios.Shard{K: 1, N: 3}, all, t0.Add(time.Second)),
		writeShard(t, scenarios.Shard{K: 2, N: 3}, all, t0),
		writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0.Add(2*time.Second)),
	}
	out, m := merge(t, dirs[2], dirs[0], dirs[1])
	doc := readDoc(t, out)
	var got []string
	for _, r := range doc.Results {
		got = append(got, r.Strategy+"/"+r.Scenario+"/"+string(rune('0'+r.Seed)))
	}
	var want []string
	whole := results.NewLatencies()
	for _, c := range all {
		want = append(want, c.Strategy+"/"+c.Scenario+"/"+string(rune('0'+c.Seed)))
		_, attempts := finish(t, t.TempDir(), c)
		whole.Add(c.Strategy, attempts)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("merged order\n%v\nwant the unsharded\n%v", got, want)
	}
	if !reflect.DeepEqual(doc.Latency, whole.Summary()) {
		t.Fatalf("latencies\n%+v\nwant\n%+v", doc.Latency, whole.Summary())
	}
	if !doc.Started.Equal(t0) || doc.DurationMS != 300 || doc.Shard != nil || len(doc.Merged) != 3 || doc.Merged[0].K != 1 ||
		doc.Summary.Cells != len(all) || !slices.Equal(doc.Seeds, []uint64{1, 2}) || doc.Command != "matrix" || m.Cells() != len(all) {
		t.Fatalf("document: started %v, %d ms, shard %v, merged %+v, summary %+v, seeds %v", doc.Started, doc.DurationMS, doc.Shard,
			doc.Merged, doc.Summary, doc.Seeds)
	}
	for _, c := range all {
		for _, k := range []int{1, 2, 3} {
			from := rundir.CellDir(dirs[k-1], c)
			if _, err := os.Stat(from); err != nil {
				continue
			}
			entries, _ := os.ReadDir(from)
			for _, e := range entries {
				a, _ := os.ReadFile(filepath.Join(from, e.Name()))
				b, err := os.ReadFile(filepath.Join(rundir.CellDir(out, c), e.Name()))
				if err != nil || !bytes.Equal(a, b) {
					t.Fatalf("%s not copied as it was: %v", filepath.Join(from, e.Name()), err)
				}
			}
		}
	}
	cells, err := rundir.Cells(out)
	if err != nil {
		t.Fatal(err)
	}
	checked, incomplete, err := rundir.Recheck(cells)
	if err != nil || len(checked) != len(all) || len(incomplete) != 0 {
		t.Fatalf("recheck: %d checked, %v incomplete, %v", len(checked), incomplete, err)
	}
	again, _ := merge(t, dirs...)
	a, _ := os.ReadFile(filepath.Join(out, rundir.DocumentFile))
	b, _ := os.ReadFile(filepath.Join(again, rundir.DocumentFile))
	if !bytes.Equal(a, b) {
		t.Fatal("two merges of the same shards differ")
	}
}

// TestMergeEmptyShards: an empty shard (more shards than cells) merges;
// 1/1 merges alone.
func TestMergeEmptyShards(t *testing.T) {
	all := matrixCells()[:2]
	var dirs []string
	for k := 1; k <= 3; k++ {
		dirs = append(dirs, writeShard(t, scenarios.Shard{K: k, N: 3}, all, time.Unix(0, 0)))
	}
	out, _ := merge(t, dirs...)
	if doc := readDoc(t, out); len(doc.Results) != 2 || doc.Merged[2].Cells != 0 {
		t.Fatalf("merged %d results, %+v", len(doc.Results), doc.Merged)
	}
	merge(t, writeShard(t, scenarios.Shard{K: 1, N: 1}, all, time.Unix(0, 0)))
}

// TestMergeRefuses: every refusal is one line naming the directory at
// fault (or the shards missing).
func TestMergeRefuses(t *testing.T) {
	all := matrixCells()
	t0 := time.Unix(0, 0)
	s1 := writeShard(t, scenarios.Shard{K: 1, N: 3}, all, t0)
	s2 := writeShard(t, scenarios.Shard{K: 2, N: 3}, all, t0)
	s3 := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	s2b := writeShard(t, scenarios.Shard{K: 2, N: 3}, all, t0)
	other := writeShard(t, scenarios.Shard{K: 2, N: 3}, all[1:], t0)
	four := writeShard(t, scenarios.Shard{K: 2, N: 4}, all, t0)

	soak := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	doc := readDoc(t, soak)
	doc.Command = "soak"
	writeDoc(t, soak, doc)

	whole := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	doc = readDoc(t, whole)
	doc.Shard = nil
	writeDoc(t, whole, doc)

	stopped := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	doc = readDoc(t, stopped)
	doc.Shard.Interrupted = true
	writeDoc(t, stopped, doc)

	undocumented := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	os.Remove(filepath.Join(undocumented, rundir.DocumentFile))

	unfinished := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	results, _ := filepath.Glob(filepath.Join(unfinished, "cells", "*", "*", "*", rundir.ResultFile))
	os.Remove(results[0])

	short := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	doc = readDoc(t, short)
	doc.Results = doc.Results[1:]
	writeDoc(t, short, doc)

	extra := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	finish(t, extra, scenarios.Cell{Strategy: "none", Scenario: "missing-key", Seed: 9})

	absent := writeShard(t, scenarios.Shard{K: 3, N: 3}, all, t0)
	doc = readDoc(t, absent)
	os.RemoveAll(rundir.CellDir(absent, scenarios.Cell{Strategy: doc.Results[0].Strategy, Scenario: doc.Results[0].Scenario, Seed: doc.Results[0].Seed}))

	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "x"), []byte("x"), 0o644)

	cases := []struct {
		dirs []string
		want string
	}{
		{[]string{s1, s3}, "shards 1/3 and 3/3 given; 2/3 is missing"},
		{[]string{s2}, "shard 2/3 given; 1/3 and 3/3 are missing"},
		{[]string{s1, s2, s3, s2}, s2 + " is given twice"},
		{[]string{s1, s2, s2b, s3}, s2b + ": shard 2/3 again (" + s2 + " is shard 2/3 too)"},
		{[]string{s1, other, s3}, other + ": shard 2/3 of another run than " + s1},
		{[]string{s1, four, s3}, four + ": shard 2/4, and " + s1 + " shard 1/3: shards of different runs (4 and 3 shards)"},
		{[]string{s1, s2, soak}, soak + ": a soak shard, and " + s1 + " a matrix shard"},
		{[]string{s1, s2, whole}, whole + " is not a shard"},
		{[]string{s1, s2, stopped}, stopped + ": shard 3/3 was interrupted"},
		{[]string{s1, s2, undocumented}, undocumented + ": no results.json"},
		{[]string{s1, s2, unfinished}, unfinished + ": shard 3/3 was interrupted: cells/"},
		{[]string{s1, s2, short}, short + ": shard 3/3 lists 1 cell; its share of the run's 8 cells is 2"},
		{[]string{s1, s2, extra}, extra + ": cells/none/missing-key/seed-9 is not in its results.json"},
		{[]string{s1, s2, absent}, absent + ": results.json lists "},
		{[]string{s1, plain, s3}, plain + " is not a run directory"},
		{[]string{s1, filepath.Join(plain, "nope")}, filepath.Join(plain, "nope") + ": no such directory"},
		{[]string{s1, filepath.Join(plain, "x")}, filepath.Join(plain, "x") + " is not a directory"},
		{nil, "no run directories given"},
	}
	for _, c := range cases {
		_, err := rundir.ReadShards(c.dirs)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("%v: %v; want one line with %q", c.dirs, err, c.want)
		}
	}
	out, _ := merge(t, s1, s2, s3)
	if _, err := rundir.ReadShards([]string{out}); err == nil || !strings.Contains(err.Error(), out+" is a merged run already") {
		t.Errorf("a merged run as a shard: %v", err)
	}
	m, err := rundir.ReadShards([]string{s1, s2, s3})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{s1, filepath.Join(s2, "merged"), filepath.Dir(s3)} {
		if err := m.CheckOut(o); err == nil || !strings.Contains(err.Error(), "overlaps the shard directory") {
			t.Errorf("--out %s: %v", o, err)
		}
	}
}

// TestMergeSoakByRound: a soak's shards merge round by round: shard K's
// j-th round is round j*N + K.
func TestMergeSoakByRound(t *testing.T) {
	seeds := []uint64{50, 40, 30, 20, 10} // rounds 1 to 5, the seed stream's order
	rec := scenarios.SoakShard(scenarios.Shard{}, []string{"pg-tx", "none"}, []string{"missing-key"}, 7, 5, api.IETF, 1)
	var dirs []string
	for k := 1; k <= 2; k++ {
		dir := filepath.Join(t.TempDir(), "soak")
		os.MkdirAll(dir, 0o755)
		rundir.Mark(dir)
		var rs []scenarios.Result
		for i, seed := range seeds {
			if !(scenarios.Shard{K: k, N: 2}).OwnsRound(i + 1) {
				continue
			}
			for _, st := range []string{"pg-tx", "none"} {
				res, _ := finish(t, dir, scenarios.Cell{Strategy: st, Scenario: "missing-key", Seed: seed})
				rs = append(rs, res)
			}
		}
		doc := results.NewDocument(rs, results.NewLatencies(), "soak", time.Unix(0, 0))
		r := *rec
		r.Shard = scenarios.Shard{K: k, N: 2}
		doc.Shard = &r
		writeDoc(t, dir, doc)
		dirs = append(dirs, dir)
	}
	out, _ := merge(t, dirs[1], dirs[0])
	doc := readDoc(t, out)
	if !slices.Equal(doc.Seeds, seeds) || len(doc.Results) != 10 || doc.Results[0].Strategy != "pg-tx" || doc.Results[1].Strategy != "none" {
		t.Fatalf("seeds %v, want %v; %d results", doc.Seeds, seeds, len(doc.Results))
	}
}
