package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

// cliParallel runs the built binary once per command line, all at once (as
// the processes of a CI job matrix), on the shared stores.
func cliParallel(t *testing.T, lines ...[]string) []outcome {
	t.Helper()
	env := append(os.Environ(), "IDEMCHAOS_REDIS_URL="+services.RedisURL, "IDEMCHAOS_POSTGRES_URL="+services.PostgresURL)
	outs := make([]outcome, len(lines))
	errs := make([]error, len(lines))
	var wg sync.WaitGroup
	for i, args := range lines {
		wg.Go(func() {
			cmd := exec.Command(binary, args...)
			cmd.Env = env
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			outs[i] = outcome{stdout: out.String(), stderr: errb.String()}
			if ee, ok := err.(*exec.ExitError); ok {
				outs[i].code = ee.ExitCode()
			} else {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return outs
}

// cellKey names a result's cell.
func cellKey(r scenarios.Result) string {
	return fmt.Sprintf("%s / %s seed %d", r.Strategy, r.Scenario, r.Seed)
}

// TestShardedMatrixMerges: a matrix run as three shards in parallel
// processes, merged, has the cells (in the same order) and the verdicts of
// the unsharded matrix, and the anomaly counts where they do not depend on
// a race; check and report read the merged directory; merging again gives
// the same bytes; and merge refuses a missing, duplicated or foreign shard,
// a directory that is not a run and an --out in use, each with exit 2 and
// one line naming it.
func TestShardedMatrixMerges(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run := []string{"matrix", "--quiet", "--strategies", "pg-tx,redis-getset", "--scenarios",
		"dropped-response,missing-key,concurrent-duplicates", "--seeds", "2"}
	var lines [][]string
	shards := make([]string, 3)
	for k := 1; k <= 3; k++ {
		shards[k-1] = filepath.Join(tmp, fmt.Sprintf("shard-%d", k))
		lines = append(lines, append(slices.Clone(run), "--shard", fmt.Sprintf("%d/3", k), "--out", shards[k-1]))
	}
	for k, o := range cliParallel(t, lines...) {
		if o.code != exitPass {
			t.Fatalf("shard %d/3: exit %d\n%s\n%s", k+1, o.code, o.stdout, o.stderr)
		}
		want := fmt.Sprintf("shard %d/3: 4 of 12 cells", k+1)
		if !strings.Contains(o.stderr, want) || !strings.Contains(o.stdout, want) {
			t.Fatalf("shard %d/3 does not say %q:\n%s\n%s", k+1, want, o.stdout, o.stderr)
		}
	}
	whole := filepath.Join(tmp, "whole")
	if o := cli(t, append(run, "--out", whole)...); o.code != exitPass {
		t.Fatalf("unsharded: exit %d\n%s", o.code, o.stderr)
	}
	merged := filepath.Join(tmp, "merged")
	o := cliEnv(t, nil, "merge", shards[2], shards[0], shards[1], "--out", merged)
	if o.code != exitPass || !strings.Contains(o.stderr, "merged 3 shards of a matrix: 12 cells") {
		t.Fatalf("merge: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}

	want, got := readSoakDoc(t, filepath.Join(whole, "results.json")), readSoakDoc(t, filepath.Join(merged, "results.json"))
	if len(got.Results) != len(want.Results) || !slices.Equal(got.Seeds, want.Seeds) || got.Command != "matrix" {
		t.Fatalf("merged: %d results, seeds %v; unsharded: %d, %v", len(got.Results), got.Seeds, len(want.Results), want.Seeds)
	}
	for i, w := range want.Results {
		g := got.Results[i]
		if cellKey(g) != cellKey(w) || g.Verdict != w.Verdict || g.AsExpected != w.AsExpected {
			t.Errorf("result %d: merged %s %s (as declared %v); unsharded %s %s (%v)", i, cellKey(g), g.Verdict, g.AsExpected,
				cellKey(w), w.Verdict, w.AsExpected)
		}
		if w.Scenario != "concurrent-duplicates" && fmt.Sprint(g.Anomalies) != fmt.Sprint(w.Anomalies) {
			t.Errorf("%s: merged anomalies %v, unsharded %v", cellKey(w), g.Anomalies, w.Anomalies)
		}
	}

	c := cliEnv(t, nil, "check", merged)
	if c.code != exitPass || !strings.Contains(c.stderr, "re-checked 12 cells offline: 0 differ") {
		t.Fatalf("check of the merged run: exit %d\n%s", c.code, c.stderr)
	}
	html := filepath.Join(tmp, "report.html")
	if r := cliEnv(t, nil, "report", merged, "--format", "html", "-o", html); r.code != exitPass {
		t.Fatalf("report --format html: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(html); !bytes.Contains(b, []byte("<html")) || !bytes.Contains(b, []byte("redis-getset")) {
		t.Fatal("no HTML report of the merged run")
	}
	again := filepath.Join(tmp, "again")
	if o := cliEnv(t, nil, "merge", shards[0], shards[1], shards[2], "--out", again); o.code != exitPass {
		t.Fatalf("merge again: exit %d\n%s", o.code, o.stderr)
	}
	a, _ := os.ReadFile(filepath.Join(merged, "results.json"))
	b, _ := os.ReadFile(filepath.Join(again, "results.json"))
	if !bytes.Equal(a, b) {
		t.Error("two merges of the same shards wrote different documents")
	}

	t.Run("refusals", func(t *testing.T) { mergeRefusals(t, tmp, shards) })
}

// mergeRefusals: each refusal is exit 2 and one line that names the
// directory at fault (or the shard missing).
func mergeRefusals(t *testing.T, tmp string, shards []string) {
	dup := filepath.Join(tmp, "shard-2-copy")
	if out, err := exec.Command("cp", "-r", shards[1], dup).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	// other runs, cheap: a one-cell matrix has nothing for shard 2/3 (nor
	// 2/2) to run, and says so in a run directory that merge reads.
	other, otherN := filepath.Join(tmp, "other"), filepath.Join(tmp, "other-n")
	for _, o := range cliParallel(t,
		[]string{"matrix", "--strategies", "pg-tx", "--scenarios", "missing-key", "--shard", "2/3", "--out", other},
		[]string{"matrix", "--strategies", "pg-tx", "--scenarios", "missing-key", "--shard", "2/2", "--out", otherN}) {
		if o.code != exitPass || !strings.Contains(o.stdout, "0 of 1 cells") || strings.Contains(o.stderr, "stores:") {
			t.Fatalf("an empty shard: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
		}
	}
	notRun := t.TempDir()
	used := filepath.Join(tmp, "merged")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{shards[0], shards[2]}, "shards 1/3 and 3/3 given; 2/3 is missing"},
		{[]string{shards[0], shards[1], dup, shards[2]}, dup + ": shard 2/3 again (" + shards[1] + " is shard 2/3 too)"},
		{[]string{shards[0], shards[1], shards[1], shards[2]}, shards[1] + " is given twice"},
		{[]string{shards[0], other, shards[2]}, other + ": shard 2/3 of another run than " + shards[0]},
		{[]string{shards[0], otherN, shards[2]}, otherN + ": shard 2/2, and " + shards[0] + " shard 1/3: shards of different runs"},
		{[]string{shards[0], shards[1], notRun}, notRun + " is not a run directory"},
		{[]string{used}, used + " is a merged run already"},
		{[]string{"--out", filepath.Join(tmp, "x")}, "usage: idemchaos merge DIR... --out DIR"},
	}
	for i, c := range cases {
		args := append([]string{"merge"}, c.args...)
		if !slices.Contains(c.args, "--out") {
			args = append(args, "--out", filepath.Join(tmp, fmt.Sprintf("refused-%d", i)))
		}
		o := cliEnv(t, nil, args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) || strings.Count(strings.TrimSpace(o.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", args, o.code, o.stderr, c.want)
		}
	}
	o := cliEnv(t, nil, "merge", shards[0], shards[1], shards[2], "--out", used)
	if o.code != exitUsage || !strings.Contains(o.stderr, "--out "+used+": the directory is not empty") {
		t.Errorf("merge into a used --out: exit %d, stderr %q", o.code, o.stderr)
	}
}

// TestShardedSoakRunsTheSameSeeds: a soak split over 4 shards runs the
// seeds of the unsharded soak with the same root seed, each once; merged,
// in the same order.
func TestShardedSoakRunsTheSameSeeds(t *testing.T) {
	tmp := t.TempDir()
	soak := []string{"soak", "--quiet", "--max-rounds", "8", "--strategies", "pg-tx", "--scenarios", "missing-key", "--seed", "7"}
	lines := [][]string{append(slices.Clone(soak), "--json", filepath.Join(tmp, "whole.json"))}
	var dirs []string
	for k := 1; k <= 4; k++ {
		dir := filepath.Join(tmp, fmt.Sprintf("shard-%d", k))
		dirs = append(dirs, dir)
		lines = append(lines, append(slices.Clone(soak), "--shard", fmt.Sprintf("%d/4", k), "--out", dir))
	}
	for i, o := range cliParallel(t, lines...) {
		if o.code != exitPass {
			t.Fatalf("soak %v: exit %d\n%s\n%s", lines[i], o.code, o.stdout, o.stderr)
		}
		if i > 0 && !strings.Contains(o.stdout, fmt.Sprintf("shard %d/4: 2 rounds of the seed stream (rounds %d and %d)", i, i, i+4)) {
			t.Errorf("shard %d/4 does not say its rounds:\n%s", i, o.stdout)
		}
	}
	whole := readSoakDoc(t, filepath.Join(tmp, "whole.json")).Seeds
	if len(whole) != 8 {
		t.Fatalf("the unsharded soak ran seeds %v; want 8", whole)
	}
	var union []uint64
	for k, dir := range dirs {
		seeds := readSoakDoc(t, filepath.Join(dir, "results.json")).Seeds
		if want := []uint64{whole[k], whole[k+4]}; !slices.Equal(seeds, want) {
			t.Errorf("shard %d/4 ran seeds %v; want rounds %d and %d of the unsharded soak: %v", k+1, seeds, k+1, k+5, want)
		}
		union = append(union, seeds...)
	}
	if !slices.Equal(slices.Sorted(slices.Values(union)), slices.Sorted(slices.Values(whole))) {
		t.Fatalf("the shards ran %v; the unsharded soak %v", union, whole)
	}
	merged := filepath.Join(tmp, "merged")
	if o := cliEnv(t, nil, append(append([]string{"merge"}, dirs...), "--out", merged)...); o.code != exitPass {
		t.Fatalf("merge: exit %d\n%s", o.code, o.stderr)
	}
	if seeds := readSoakDoc(t, filepath.Join(merged, "results.json")).Seeds; !slices.Equal(seeds, whole) {
		t.Fatalf("merged seeds %v; unsharded %v", seeds, whole)
	}
	if c := cliEnv(t, nil, "check", merged); c.code != exitPass || !strings.Contains(c.stderr, "re-checked 8 cells offline: 0 differ") {
		t.Fatalf("check of the merged soak: exit %d\n%s", c.code, c.stderr)
	}
}

// TestShardedTargetMatrix: against a user's service, the runnable cells
// are split (the skipped ones listed by every shard), and merge.
func TestShardedTargetMatrix(t *testing.T) {
	p := startPaymentd(t, "pg-tx")
	tmp := t.TempDir()
	var dirs []string
	for k := 1; k <= 2; k++ {
		dir := filepath.Join(tmp, fmt.Sprintf("shard-%d", k))
		dirs = append(dirs, dir)
		o := cliEnv(t, nil, "matrix", "--quiet", "--target-url", p.url, "--ledger-url", p.ledgerURL, "--ledger-query", p.ledgerQuery,
			"--scenarios", "forced-race,missing-key,dropped-response", "--shard", fmt.Sprintf("%d/2", k), "--out", dir)
		if o.code != exitPass || !strings.Contains(o.stderr, "skipped forced-race") || !strings.Contains(o.stderr, fmt.Sprintf("shard %d/2: 1 of 2 cells", k)) {
			t.Fatalf("shard %d/2: exit %d\n%s\n%s", k, o.code, o.stdout, o.stderr)
		}
	}
	merged := filepath.Join(tmp, "merged")
	if o := cliEnv(t, nil, "merge", dirs[0], dirs[1], "--out", merged); o.code != exitPass {
		t.Fatalf("merge: exit %d\n%s", o.code, o.stderr)
	}
	doc := readSoakDoc(t, filepath.Join(merged, "results.json"))
	if len(doc.Results) != 2 || doc.Results[0].Scenario != "missing-key" || doc.Results[1].Scenario != "dropped-response" || !doc.Results[0].Service {
		t.Fatalf("merged results %+v", doc.Results)
	}
	if c := cliEnv(t, nil, "check", merged); c.code != exitPass {
		t.Fatalf("check: exit %d\n%s", c.code, c.stderr)
	}
}

func TestShardFlagRefusals(t *testing.T) {
	for _, args := range [][]string{
		{"matrix", "--shard", "0/3"},
		{"matrix", "--shard", "4/3"},
		{"matrix", "--shard", "1/1001"},
		{"matrix", "--shard", "3"},
		{"soak", "--shard", "2/"},
		{"soak", "--shard", "a/b"},
		{"run", "--strategy", "pg-tx", "--scenario", "missing-key", "--shard", "1/2"},
	} {
		o := cli(t, args...)
		if o.code != exitUsage || strings.Count(strings.TrimSpace(o.stderr), "\n") != 0 || !strings.Contains(o.stderr, "shard") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, o.code, o.stderr)
		}
	}
}
