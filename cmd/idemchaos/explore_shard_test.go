package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/results/rundir"
	"github.com/idemchaos/idemchaos/scenarios/explore"
)

// TestExploreShards: an exploration run in two shards merges into the
// exploration run whole: the same cases in the same order, the same
// orders and verdicts, the same exit; check judges the merged run again.
func TestExploreShards(t *testing.T) {
	base := t.TempDir()
	args := []string{"explore", "--strategy", "pg-tx", "--case", "duplicate,mismatch,lost-reply", "--quiet", "--recheck", "1"}
	whole := cli(t, append(args, "--out", filepath.Join(base, "whole"))...)
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		dir := filepath.Join(base, "shard-"+s[:1])
		o := cli(t, append(args, "--shard", s, "--out", dir)...)
		if o.code != exitPass || !strings.Contains(o.stdout, "shard "+s+": ") {
			t.Fatalf("explore --shard %s: exit %d\n%s\n%s", s, o.code, o.stdout, o.stderr)
		}
		shards = append(shards, dir)
	}
	merged := filepath.Join(base, "merged")
	m := cli(t, "merge", shards[1], shards[0], "--out", merged)
	want, got := readExploreDoc(t, filepath.Join(base, "whole")), readExploreDoc(t, merged)
	if m.code != whole.code || m.code != exitPass || len(got.Explorations) != len(want.Explorations) || len(want.Explorations) < 3 {
		t.Fatalf("merge: exit %d (whole: %d), %d cases (whole: %d)\n%s\n%s", m.code, whole.code, len(got.Explorations), len(want.Explorations), m.stdout, m.stderr)
	}
	for i, w := range want.Explorations {
		g := got.Explorations[i]
		if g.Case != w.Case || g.Sentence() != w.Sentence() || g.Verdict() != w.Verdict() || !slices.Equal(orders(g), orders(w)) {
			t.Errorf("case %d: merged %s %v, whole %s %v", i, g.Sentence(), orders(g), w.Sentence(), orders(w))
		}
	}
	if !strings.Contains(m.stdout, explore.Summary(want.Explorations)) {
		t.Errorf("merge does not say what the whole proves (%s):\n%s", explore.Summary(want.Explorations), m.stdout)
	}
	if page := readFile(t, filepath.Join(merged, rundir.ReportFile)); strings.Count(page, `<section class="case"`) != len(want.Explorations) {
		t.Errorf("the merged run's page has %d sections; want one per case (%d)", strings.Count(page, `<section class="case"`), len(want.Explorations))
	}
	if o := cli(t, "check", merged); o.code != exitPass || o.stdout != m.stdout {
		t.Errorf("check of the merged run: exit %d\n%s\nwant merge's:\n%s", o.code, o.stdout, m.stdout)
	}
}

// orders are the orders of a case, sorted.
func orders(r explore.Result) []string {
	var out []string
	for _, run := range r.Runs {
		out = append(out, run.Order.String())
	}
	slices.Sort(out)
	return out
}
