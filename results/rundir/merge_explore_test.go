package rundir_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// exploreCases are an exploration's cases in the order planned, each with
// one order run: the last a double charge.
func exploreCases() []explore.Result {
	var out []explore.Result
	for i, name := range []string{"duplicate", "mismatch", "lost-reply@before-commit", "lost-reply@answer", "pg-cut@after-check"} {
		ex := explore.Execution{Order: explore.Order{0, 1}, Steps: []explore.Step{{Request: 0, From: explore.Send}, {Request: 1, From: explore.Send}},
			Attempts: []history.Attempt{{ID: "o0-t1", Key: "k", Status: 201, Outcome: history.Acked, ChargeID: "ch_1"},
				{ID: "o1-t1", Key: "k", Status: 409, Outcome: history.Rejected}}, Answered: []int{2, 2},
			Ledger: history.Ledger{Charges: []history.Charge{{ID: "ch_1", Key: "k", AttemptID: "o0-t1", Amount: 100, Seq: 1}}}}
		if i == 4 {
			ex.Attempts[1] = history.Attempt{ID: "o1-t1", Key: "k", Status: 201, Outcome: history.Acked, ChargeID: "ch_2"}
			ex.Ledger.Charges = append(ex.Ledger.Charges, history.Charge{ID: "ch_2", Key: "k", AttemptID: "o1-t1", Amount: 100, Seq: 2})
		}
		out = append(out, explore.Result{Target: "pg-tx", Case: name, Requests: 2, Preemptions: -1, Profile: api.IETF, Args: "--strategy pg-tx",
			Runs: []explore.Run{explore.Judged(ex, api.IETF, false)}})
	}
	return out
}

// writeExploreShard saves shard s of the exploration of all, as explore
// --shard does (s zero: the whole exploration, no record).
func writeExploreShard(t *testing.T, s scenarios.Shard, all []explore.Result, started time.Time) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "explore")
	if err := rundir.Prepare(dir, 0); err != nil {
		t.Fatal(err)
	}
	var mine, names []string
	var res []explore.Result
	for i, r := range all {
		names = append(names, r.Case)
		if s.Owns(i) {
			res, mine = append(res, r), append(mine, r.Case)
		}
	}
	doc := results.NewExploreDocument(res, "ietf", 1, started)
	doc.DurationMS = int64(len(mine)) * 1000
	if s.Set() {
		doc.Shard = scenarios.ExploreShard(s, "--strategy pg-tx", names, "requests=2")
	}
	if err := rundir.WriteDocument(dir, doc); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMergeExploration: the shards of an exploration merge into the
// document of the whole, its cases in the order planned and its verdict
// the whole's; shards of another exploration, a case twice or a shard
// short of its share are refused in one line.
func TestMergeExploration(t *testing.T) {
	all := exploreCases()
	t0 := time.Unix(1000, 0)
	whole, err := rundir.ReadDocument(writeExploreShard(t, scenarios.Shard{}, all, t0))
	if err != nil {
		t.Fatal(err)
	}
	one, two := writeExploreShard(t, scenarios.Shard{K: 1, N: 2}, all, t0), writeExploreShard(t, scenarios.Shard{K: 2, N: 2}, all, t0.Add(time.Second))
	m, err := rundir.ReadShards([]string{two, one})
	if err != nil {
		t.Fatal(err)
	}
	got := m.Document()
	if !reflect.DeepEqual(got.Explorations, whole.Explorations) || got.Command != "explore" || m.Cells() != len(all) ||
		len(got.Merged) != 2 || got.Merged[0].Cells != 3 || got.Merged[1].Cells != 2 || !reflect.DeepEqual(got.Seeds, whole.Seeds) {
		t.Fatalf("merged %+v\nwant the cases of %+v", got, whole)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := rundir.Prepare(out, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	back, err := rundir.ReadDocument(out)
	if err != nil || !reflect.DeepEqual(back.Explorations, whole.Explorations) {
		t.Fatalf("the merged run directory: %v", err)
	}
	if v := back.Explorations[4].Rejudge().Verdict(); v != scenarios.Fail {
		t.Errorf("the merged double charge: %s", v)
	}

	other := all[:4]
	for name, c := range map[string]struct {
		dirs []string
		want string
	}{
		"another exploration": {[]string{one, writeExploreShard(t, scenarios.Shard{K: 2, N: 2}, other, t0)}, "of another run"},
		"short":               {[]string{one, shortShard(t, writeExploreShard(t, scenarios.Shard{K: 2, N: 2}, all, t0))}, "lists 1 case; its share of the exploration's 5 cases is 2"},
		"missing":             {[]string{one}, "2/2 is missing"},
	} {
		if _, err := rundir.ReadShards(c.dirs); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", name, err, c.want)
		}
	}
}

// shortShard drops the last case of a shard's document.
func shortShard(t *testing.T, dir string) string {
	t.Helper()
	doc, err := rundir.ReadDocument(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc.Explorations = doc.Explorations[:len(doc.Explorations)-1]
	if err := os.Remove(filepath.Join(dir, rundir.DocumentFile)); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteDocument(dir, doc); err != nil {
		t.Fatal(err)
	}
	return dir
}
