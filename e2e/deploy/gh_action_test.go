package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/scenarios"
)

const ownServiceWorkflow = "examples/github-actions/own-service.yml"

// verdictNames are the action's verdict output for each exit code of the
// CLI.
var verdictNames = map[int]string{exitPass: "pass", exitViolated: "violated", exitUsage: "usage", exitEnv: "environment",
	exitInconclusive: "inconclusive", exitInterrupted: "interrupted"}

// actionStep is the action's step of that id.
func actionStep(t *testing.T, a ghAction, id string) ghStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("action.yml: no step %q", id)
	return ghStep{}
}

// actionInputs are the action's inputs as a use of it gives them: with,
// else the default; the expressions inputs.NAME.
func actionInputs(t *testing.T, a ghAction, with map[string]string) map[string]string {
	t.Helper()
	vars := map[string]string{}
	for name, in := range a.Inputs {
		v, ok := with[name]
		if !ok {
			if in.Required {
				t.Errorf("input %s is required and not given", name)
			}
			v = in.Default
		}
		vars["inputs."+name] = v
	}
	for name := range with {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("with: %s is not an input of the action", name)
		}
	}
	return vars
}

// ownServiceUse is the own-service workflow's step that uses the action.
func ownServiceUse(t *testing.T) (ghJob, ghStep) {
	t.Helper()
	w := loadWorkflow(t, ownServiceWorkflow)
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if s.Uses == "./" {
				return j, s
			}
		}
	}
	t.Fatalf("%s: no step uses ./ (the action at the repository's root)", ownServiceWorkflow)
	return ghJob{}, ghStep{}
}

// TestActionRun: the action's run step, with the inputs the example
// workflow gives, runs a matrix the CLI accepts against the service with
// the ledger URL only in the environment, renders JUnit, Markdown (also to
// the step summary) and HTML when there is a run, and names the verdict of
// every exit code; it fails the step with that code unless fail is false.
func TestActionRun(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q; want composite", a.Runs.Using)
	}
	_, use := ownServiceUse(t)
	vars := actionInputs(t, a, use.With)
	step := actionStep(t, a, "run")
	r, files := runStep(t, step, vars, nil, nil)
	calls := r.idemchaosCalls()
	if r.code != 0 || len(calls) != 4 {
		t.Fatalf("exit %d, calls %q; want a matrix and 3 reports\n%s", r.code, calls, r.output)
	}
	env := map[string]string{scenarios.LedgerURLEnv: vars["inputs.ledger-url"]}
	for _, c := range calls {
		if err := cliAccepts(c, env); err != nil {
			t.Error(err)
		}
		if slices.Contains(c, vars["inputs.ledger-url"]) {
			t.Errorf("the ledger URL is on a command line: %q", c)
		}
	}
	flags, _ := flagValues(calls[0][2:])
	for flag, input := range map[string]string{"target-url": "target-url", "ledger-query": "ledger-query", "scenarios": "scenarios", "profile": "profile", "seeds": "seeds"} {
		if calls[0][1] != "matrix" || flags[flag] != vars["inputs."+input] {
			t.Errorf("%q: --%s %q; want input %s %q", calls[0], flag, flags[flag], input, vars["inputs."+input])
		}
	}
	outs := files.outputs(t)
	reports := reportOutputs(t, calls[1:], flags["out"])
	for output, want := range map[string]string{"run-dir": flags["out"], "junit": reports["junit"], "markdown": reports["markdown"], "html": reports["html"]} {
		if outs[output] != want || want == "" {
			t.Errorf("output %s %q; want %q", output, outs[output], want)
		}
	}
	if !strings.Contains(files.read(t, files.summary), "--format markdown") {
		t.Errorf("the step summary holds %q, not the Markdown report", files.read(t, files.summary))
	}
	checkActionOutputs(t, a, outs)
	checkActionVerdicts(t, step, vars)
}

// checkActionOutputs: every output of the action is one the run step
// writes.
func checkActionOutputs(t *testing.T, a ghAction, written map[string]string) {
	t.Helper()
	ref := regexp.MustCompile(`^\$\{\{ steps\.run\.outputs\.([a-z-]+) \}\}$`)
	for name, o := range a.Outputs {
		m := ref.FindStringSubmatch(o.Value)
		if m == nil {
			t.Errorf("output %s: value %q; want ${{ steps.run.outputs.NAME }}", name, o.Value)
			continue
		}
		if _, ok := written[m[1]]; !ok {
			t.Errorf("output %s reads steps.run.outputs.%s, which the step never writes (it writes %v)", name, m[1], written)
		}
	}
}

// checkActionVerdicts: each exit code of the CLI, its verdict name, and
// the step's exit code with fail true and false.
func checkActionVerdicts(t *testing.T, step ghStep, vars map[string]string) {
	t.Helper()
	for code, verdict := range verdictNames {
		for _, fail := range []string{"true", "false"} {
			v := map[string]string{}
			for k, x := range vars {
				v[k] = x
			}
			v["inputs.fail"] = fail
			r, files := runStep(t, step, v, map[string]string{"FAKE_EXIT": strconv.Itoa(code)}, nil)
			outs := files.outputs(t)
			want := code
			if fail == "false" {
				want = 0
			}
			if r.code != want || outs["verdict"] != verdict || outs["exit-code"] != strconv.Itoa(code) {
				t.Errorf("idemchaos exit %d, fail %s: step exit %d, outputs %v; want exit %d, verdict %s", code, fail, r.code, outs, want, verdict)
			}
		}
	}
}

// TestActionExtraArgs: the args input reaches the command line word by
// word, after the action's own flags.
func TestActionExtraArgs(t *testing.T) {
	a := loadAction(t)
	_, use := ownServiceUse(t)
	vars := actionInputs(t, a, use.With)
	vars["inputs.args"] = "--toxiproxy-url http://127.0.0.1:8474  --postgres-proxy payments-postgres"
	r, _ := runStep(t, actionStep(t, a, "run"), vars, nil, nil)
	calls := r.idemchaosCalls()
	if len(calls) == 0 {
		t.Fatalf("no idemchaos call\n%s", r.output)
	}
	if !slices.Equal(calls[0][len(calls[0])-4:], strings.Fields(vars["inputs.args"])) {
		t.Errorf("%q does not end with the args input %q", calls[0], vars["inputs.args"])
	}
	if err := cliAccepts(calls[0], map[string]string{scenarios.LedgerURLEnv: vars["inputs.ledger-url"]}); err != nil {
		t.Error(err)
	}
}

// TestActionBuild: the action builds the CLI from its own checkout, with
// the Go its go.mod names, onto the PATH of the steps after it.
func TestActionBuild(t *testing.T) {
	a := loadAction(t)
	var built bool
	for _, s := range a.Runs.Steps {
		if s.Run != "" && s.Shell == "" {
			t.Errorf("step %q: a composite action's run step needs a shell", s.Name)
		}
		if strings.HasPrefix(s.Uses, "actions/setup-go@") && s.With["go-version-file"] != "${{ github.action_path }}/go.mod" {
			t.Errorf("setup-go reads %q; want the action's own go.mod", s.With["go-version-file"])
		}
		if s.WorkingDirectory == "${{ github.action_path }}" && strings.Contains(s.Run, "go build -o \"$RUNNER_TEMP/idemchaos-bin/idemchaos\" ./cmd/idemchaos") &&
			strings.Contains(s.Run, `echo "$RUNNER_TEMP/idemchaos-bin" >> "$GITHUB_PATH"`) {
			built = true
		}
		if invokesIdemchaos.MatchString(s.Run) && !built {
			t.Errorf("step %q calls idemchaos before it is built", s.Name)
		}
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "cmd/idemchaos")); err != nil || !built {
		t.Errorf("no step builds ./cmd/idemchaos in github.action_path onto the PATH (%v)", err)
	}
}

// TestOwnServiceWorkflow: the example uses the action at the repository's
// root with its inputs, reads only outputs the action declares, tests the
// service where it starts it, and publishes its stores on loopback only.
func TestOwnServiceWorkflow(t *testing.T) {
	a := loadAction(t)
	j, use := ownServiceUse(t)
	if _, err := os.Stat(filepath.Join(repoRoot, use.Uses, "action.yml")); err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`steps\.([a-z-]+)\.outputs\.([a-z-]+)`).FindAllStringSubmatch(string(readRepoFile(t, ownServiceWorkflow)), -1)
	if len(refs) == 0 {
		t.Error("the workflow reads no output of the action")
	}
	for _, m := range refs {
		if _, ok := a.Outputs[m[2]]; m[1] != use.ID || !ok {
			t.Errorf("%s reads steps.%s.outputs.%s: not an output of the action step %q", ownServiceWorkflow, m[1], m[2], use.ID)
		}
	}
	host := strings.TrimPrefix(use.With["target-url"], "http://")
	if !slices.ContainsFunc(j.Steps, func(s ghStep) bool { return strings.Contains(s.Run, "--listen "+host+" ") }) {
		t.Errorf("no step starts the service on %s, the target-url", host)
	}
	for name, s := range j.Services {
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("service %s publishes %s beyond loopback", name, p)
			}
		}
	}
}
