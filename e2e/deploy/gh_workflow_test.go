package deploy

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const shardedWorkflow = "examples/github-actions/sharded-matrix.yml"

// idemchaosSteps are the run steps of a job that call idemchaos, after a
// step that builds it onto the PATH.
func idemchaosSteps(t *testing.T, j ghJob) []ghStep {
	t.Helper()
	built := false
	var out []ghStep
	for _, s := range j.Steps {
		if strings.Contains(s.Run, "go build -o \"$RUNNER_TEMP/bin/idemchaos\" ./cmd/idemchaos") && strings.Contains(s.Run, `>> "$GITHUB_PATH"`) {
			built = true
		}
		if invokesIdemchaos.MatchString(s.Run) {
			if !built {
				t.Errorf("step %q calls idemchaos before a step builds it onto the PATH", s.Name)
			}
			out = append(out, s)
		}
	}
	return out
}

// stepUsing is the job's step that uses action (owner/name@...).
func stepUsing(t *testing.T, j ghJob, action string) ghStep {
	t.Helper()
	for _, s := range j.Steps {
		if strings.HasPrefix(s.Uses, action+"@") {
			return s
		}
	}
	t.Fatalf("no step uses %s", action)
	return ghStep{}
}

// TestWorkflowShards: the shard job's matrix values are exactly 1..N, each
// runs matrix --shard K/N into the directory it uploads, passes when its
// shard ran, and keeps the others running when one fails.
func TestWorkflowShards(t *testing.T) {
	w := loadWorkflow(t, shardedWorkflow)
	j := w.Jobs["shard"]
	if j.Strategy.FailFast == nil || *j.Strategy.FailFast {
		t.Error("shard: fail-fast is not false: one failing shard would cancel the others")
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "scripts/setup")); err != nil || !slices.ContainsFunc(j.Steps, func(s ghStep) bool { return strings.Contains(s.Run, "scripts/setup") }) {
		t.Errorf("shard: no step runs scripts/setup (the stores): %v", err)
	}
	values := j.Strategy.Matrix["shard"]
	steps := idemchaosSteps(t, j)
	if len(steps) != 1 {
		t.Fatalf("shard: %d steps call idemchaos; want one", len(steps))
	}
	n := 0
	for _, v := range values {
		vars := map[string]string{"matrix.shard": v}
		r, _ := runStep(t, steps[0], vars, nil, nil)
		calls := r.idemchaosCalls()
		if r.code != 0 || len(calls) != 1 {
			t.Fatalf("shard %s: exit %d, calls %q\n%s", v, r.code, calls, r.output)
		}
		if err := cliAccepts(calls[0], nil); err != nil {
			t.Fatal(err)
		}
		flags, _ := flagValues(calls[0][2:])
		k, total, _ := strings.Cut(flags["shard"], "/")
		n, _ = strconv.Atoi(total)
		if calls[0][1] != "matrix" || k != v {
			t.Errorf("shard %s runs %q; want matrix --shard %s/N", v, calls[0], v)
		}
		upload := stepUsing(t, j, "actions/upload-artifact")
		if p, _ := evalExpr(upload.With["path"], vars); p != flags["out"] {
			t.Errorf("shard %s writes %s, uploads %s", v, flags["out"], p)
		}
	}
	var want []string
	for k := 1; k <= n; k++ {
		want = append(want, strconv.Itoa(k))
	}
	if !slices.Equal(values, want) {
		t.Errorf("matrix shard values %q; want %q, 1..N of --shard K/%d", values, want, n)
	}
	for code, exit := range map[int]int{exitPass: 0, exitViolated: 0, exitInconclusive: 0, exitUsage: exitUsage, exitEnv: exitEnv} {
		r, _ := runStep(t, steps[0], map[string]string{"matrix.shard": "1"}, map[string]string{"FAKE_EXIT": strconv.Itoa(code)}, nil)
		if r.code != exit {
			t.Errorf("idemchaos exit %d: the shard step exits %d; want %d", code, r.code, exit)
		}
	}
}

// shardArtifacts are the names the shard job uploads its directories as.
func shardArtifacts(t *testing.T, j ghJob) []string {
	t.Helper()
	upload := stepUsing(t, j, "actions/upload-artifact")
	var out []string
	for _, v := range j.Strategy.Matrix["shard"] {
		name, err := evalExpr(upload.With["name"], map[string]string{"matrix.shard": v})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	return out
}

// TestWorkflowMerge: the merge job waits for the shards and runs even when
// one failed; it downloads every shard's artifact, merges exactly those
// directories, and when there is a merged run writes JUnit for the report
// step, Markdown to the step summary and HTML into the uploaded artifact;
// its exit code is the run's verdict.
func TestWorkflowMerge(t *testing.T) {
	w := loadWorkflow(t, shardedWorkflow)
	j := w.Jobs["merge"]
	if !slices.Contains(j.Needs, "shard") || (!strings.Contains(j.If, "!cancelled()") && !strings.Contains(j.If, "always()")) {
		t.Errorf("merge: needs %q, if %q; want needs shard, and to run when a shard failed", j.Needs, j.If)
	}
	artifacts := shardArtifacts(t, w.Jobs["shard"])
	pattern := stepUsing(t, j, "actions/download-artifact").With["pattern"]
	for _, a := range artifacts {
		if ok, _ := path.Match(pattern, a); !ok {
			t.Errorf("download pattern %q misses artifact %s", pattern, a)
		}
	}
	steps := idemchaosSteps(t, j)
	if len(steps) != 1 {
		t.Fatalf("merge: %d steps call idemchaos; want one", len(steps))
	}
	downloaded := func(dir string) { // download-artifact puts each artifact in a directory of its name
		for _, a := range artifacts {
			if err := os.MkdirAll(filepath.Join(dir, a), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	r, files := runStep(t, steps[0], nil, nil, downloaded)
	calls := r.idemchaosCalls()
	if r.code != 0 || len(calls) < 2 {
		t.Fatalf("merge step: exit %d, calls %q\n%s", r.code, calls, r.output)
	}
	for _, c := range calls {
		if err := cliAccepts(c, nil); err != nil {
			t.Error(err)
		}
	}
	flags, dirs := flagValues(calls[0][2:])
	if calls[0][1] != "merge" || !slices.Equal(dirs, artifacts) {
		t.Fatalf("%q; want idemchaos merge %s --out DIR", calls[0], strings.Join(artifacts, " "))
	}
	out := reportOutputs(t, calls[1:], flags["out"])
	if !strings.Contains(files.read(t, files.summary), "--format markdown]") {
		t.Errorf("the step summary holds %q, not the Markdown report", files.read(t, files.summary))
	}
	if got := stepUsing(t, j, "mikepenz/action-junit-report").With["report_paths"]; got != out["junit"] || got == "" {
		t.Errorf("the JUnit step reads %q; the report writes %q", got, out["junit"])
	}
	if kept := stepUsing(t, j, "actions/upload-artifact").With["path"]; out["html"] == "" || !slices.Contains(strings.Fields(kept), out["html"]) {
		t.Errorf("the artifact keeps %q, not the HTML report %q", kept, out["html"])
	}
	for code, reports := range map[int]bool{exitViolated: true, exitInconclusive: true, exitUsage: false} {
		r, _ := runStep(t, steps[0], nil, map[string]string{"FAKE_EXIT_merge": strconv.Itoa(code)}, downloaded)
		if r.code != code || (len(r.idemchaosCalls()) > 1) != reports {
			t.Errorf("merge exit %d: the step exits %d after %q; want %d, reports %v", code, r.code, r.idemchaosCalls(), code, reports)
		}
	}
}

// reportOutputs maps each format the report calls render dir in to its -o
// file ("" for stdout); junit, html and markdown are required.
func reportOutputs(t *testing.T, calls [][]string, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range calls {
		flags, pos := flagValues(c[2:])
		if c[1] != "report" || !slices.Equal(pos, []string{dir}) {
			t.Errorf("%q: want idemchaos report %s ...", c, dir)
		}
		out[flags["format"]] = flags["o"]
	}
	for _, f := range []string{"junit", "html", "markdown"} {
		if _, ok := out[f]; !ok {
			t.Errorf("no %s report of %s (reports %v)", f, dir, out)
		}
	}
	return out
}

// TestRunScriptsWithoutExpressions: no run script of the workflows or the
// action holds an expression: an input or a matrix value reaches the shell
// through env, never pasted into the script (script injection).
func TestRunScriptsWithoutExpressions(t *testing.T) {
	steps := map[string][]ghStep{"action.yml": loadAction(t).Runs.Steps}
	for _, f := range []string{shardedWorkflow, ownServiceWorkflow} {
		for name, j := range loadWorkflow(t, f).Jobs {
			steps[f+" job "+name] = j.Steps
		}
	}
	for where, ss := range steps {
		for _, s := range ss {
			if ghExpr.MatchString(s.Run) {
				t.Errorf("%s: step %q: an expression inside run; pass it through env", where, s.Name)
			}
		}
	}
}
