package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The parts of the GitHub Actions workflow and action schemas the files
// use; decoding refuses any other field.

type ghStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	Env              map[string]string `yaml:"env"`
	If               string            `yaml:"if"`
	WorkingDirectory string            `yaml:"working-directory"`
}

type ghJob struct {
	Name           string            `yaml:"name"`
	Needs          ghList            `yaml:"needs"`
	If             string            `yaml:"if"`
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Permissions    map[string]string `yaml:"permissions"`
	Strategy       struct {
		FailFast *bool               `yaml:"fail-fast"`
		Matrix   map[string][]string `yaml:"matrix"`
	} `yaml:"strategy"`
	Services map[string]struct {
		Image   string            `yaml:"image"`
		Env     map[string]string `yaml:"env"`
		Ports   []string          `yaml:"ports"`
		Options string            `yaml:"options"`
	} `yaml:"services"`
	Env   map[string]string `yaml:"env"`
	Steps []ghStep          `yaml:"steps"`
}

type ghWorkflow struct {
	Name        string               `yaml:"name"`
	On          map[string]yaml.Node `yaml:"on"`
	Permissions map[string]string    `yaml:"permissions"`
	Env         map[string]string    `yaml:"env"`
	Jobs        map[string]ghJob     `yaml:"jobs"`
}

type ghAction struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Steps []ghStep `yaml:"steps"`
	} `yaml:"runs"`
}

// ghList is a job's needs: one name or a list.
type ghList []string

func (l *ghList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = ghList{n.Value}
		return nil
	}
	var list []string
	err := n.Decode(&list)
	*l = list
	return err
}

func loadWorkflow(t *testing.T, rel string) ghWorkflow {
	t.Helper()
	var w ghWorkflow
	if err := decodeStrict(readRepoFile(t, rel), &w); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return w
}

func loadAction(t *testing.T) ghAction {
	t.Helper()
	var a ghAction
	if err := decodeStrict(readRepoFile(t, "action.yml"), &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// evalExpr replaces each ${{ X }} in s with vars[X]; an expression vars
// does not hold is an error.
func evalExpr(s string, vars map[string]string) (string, error) {
	var missing []string
	out := ghExpr.ReplaceAllStringFunc(s, func(m string) string {
		x := ghExpr.FindStringSubmatch(m)[1]
		v, ok := vars[x]
		if !ok {
			missing = append(missing, x)
		}
		return v
	})
	if missing != nil {
		return "", fmt.Errorf("%q: expressions %q unknown to the test", s, missing)
	}
	return out, nil
}

var invokesIdemchaos = regexp.MustCompile(`(?m)(^|[\s;&|(])idemchaos(\s|$)`)

// ghFiles are the files a step writes its outputs, summary and path to.
type ghFiles struct{ output, summary, path string }

func (f ghFiles) read(t *testing.T, which string) string {
	t.Helper()
	b, err := os.ReadFile(which)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// outputs parses the step's name=value outputs.
func (f ghFiles) outputs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(f.read(t, f.output), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// runStep runs a run step as GitHub would on Linux, in its shell, with the
// fakes; vars are the expressions its env may use, extra more variables.
func runStep(t *testing.T, s ghStep, vars, extra map[string]string, prepare func(dir string)) (shellRun, ghFiles) {
	t.Helper()
	if ghExpr.MatchString(s.Run) {
		t.Fatalf("step %q: an expression inside run (script injection); pass it through env", s.Name)
	}
	tmp := t.TempDir()
	f := ghFiles{output: filepath.Join(tmp, "output"), summary: filepath.Join(tmp, "summary"), path: filepath.Join(tmp, "path")}
	env := map[string]string{"RUNNER_TEMP": tmp, "GITHUB_OUTPUT": f.output, "GITHUB_STEP_SUMMARY": f.summary, "GITHUB_PATH": f.path}
	for k, v := range s.Env {
		e, err := evalExpr(v, vars)
		if err != nil {
			t.Fatalf("step %q: env %s: %v", s.Name, k, err)
		}
		env[k] = e
	}
	for k, v := range extra {
		env[k] = v
	}
	script := filepath.Join(tmp, "script.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	shells := map[string][]string{"": {"bash", "-e"}, "bash": {"bash", "--noprofile", "--norc", "-eo", "pipefail"}, "sh": {"sh", "-e"}}
	argv, ok := shells[s.Shell]
	if !ok {
		t.Fatalf("step %q: shell %q unknown to the test", s.Name, s.Shell)
	}
	return runScript(t, append(argv, script), env, prepare), f
}
