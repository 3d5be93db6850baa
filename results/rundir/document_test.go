package rundir_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios"
)

// TestDocumentRoundTrip: what WriteDocument saves, ReadDocument reads back;
// a run without its document is ErrNoDocument; a damaged one is one line
// naming the file.
func TestDocumentRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := rundir.ReadDocument(dir); !errors.Is(err, rundir.ErrNoDocument) {
		t.Fatalf("no document: %v, want ErrNoDocument", err)
	}
	rs := []scenarios.Result{{Strategy: "pg-tx", Scenario: "missing-key", Seed: 3, Verdict: scenarios.Pass, AsExpected: true, Profile: "ietf"}}
	doc := results.NewDocument(rs, results.NewLatencies(), "matrix", time.Unix(100, 0))
	if err := rundir.WriteDocument(dir, doc); err != nil {
		t.Fatal(err)
	}
	back, err := rundir.ReadDocument(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Command != "matrix" || !reflect.DeepEqual(back.Seeds, []uint64{3}) || back.Summary.Pass != 1 || len(back.Results) != 1 {
		t.Errorf("read back %+v", back)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.DocumentFile), []byte(`{"schema_version": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = rundir.ReadDocument(dir)
	if err == nil || !strings.Contains(err.Error(), rundir.DocumentFile) || strings.Contains(err.Error(), "\n") ||
		strings.Contains(err.Error(), "read results") {
		t.Errorf("damaged document: %v", err)
	}
}

// TestLoadTellsDocumentsApart: a run directory gives its run document, a
// bench file its bench document, a run stopped before its document the
// cells that finished, in run order; nothing to show is an error.
func TestLoadTellsDocumentsApart(t *testing.T) {
	all := matrixCells()
	run := writeShard(t, scenarios.Shard{K: 1, N: 1}, all, time.Unix(0, 0))
	s, err := rundir.Load(run)
	if err != nil || s.Run == nil || s.Bench != nil || len(s.Run.Results) != len(all) || s.Path != filepath.Join(run, rundir.DocumentFile) {
		t.Fatalf("run directory: %+v, %v", s, err)
	}
	bench := filepath.Join(t.TempDir(), "bench.json")
	f, err := os.Create(bench)
	if err != nil {
		t.Fatal(err)
	}
	if err := results.WriteBenchJSON(f, results.Bench{BenchHeader: results.BenchHeader{Command: "bench"}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if s, err := rundir.Load(bench); err != nil || s.Bench == nil || s.Run != nil {
		t.Fatalf("bench file: %+v, %v", s, err)
	}
	if err := os.Remove(filepath.Join(run, rundir.DocumentFile)); err != nil {
		t.Fatal(err)
	}
	s, err = rundir.Load(run)
	if err != nil || s.Run == nil || s.Run.Command != "partial" || len(s.Run.Results) != len(all) {
		t.Fatalf("partial run: %+v, %v", s, err)
	}
	if first := s.Run.Results[0]; first.Strategy != "redis-getset" || first.Scenario != "dropped-response" || first.Seed != 1 {
		t.Errorf("partial run starts with %s / %s seed %d; want the catalog's order", first.Strategy, first.Scenario, first.Seed)
	}
	empty := t.TempDir()
	if err := rundir.Mark(empty); err != nil {
		t.Fatal(err)
	}
	if _, err := rundir.Load(empty); err == nil || !strings.Contains(err.Error(), "nothing to report") {
		t.Errorf("a run with no finished cell: %v", err)
	}
	if _, err := rundir.Load(filepath.Join(empty, "absent.json")); err == nil {
		t.Error("a missing file loaded")
	}
}
