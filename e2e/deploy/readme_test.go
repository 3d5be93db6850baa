package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/idemchaos/idemchaos/scenarios"
)

// deployFiles are the files whose header comments show the commands a user
// runs.
var deployFiles = []string{"Dockerfile", composeFile, indexedJobFile, mergeJobFile, inClusterFile,
	"action.yml", shardedWorkflow, ownServiceWorkflow}

// ciPage is the page "CI and beyond one machine" (docs/ci.md).
func ciPage(t *testing.T) string {
	t.Helper()
	page := string(readRepoFile(t, ciDoc))
	if !strings.HasPrefix(page, "# CI and beyond one machine\n") {
		t.Fatalf("%s: not the page CI and beyond one machine", ciDoc)
	}
	return page
}

// ciDoc is the page that shows the deployment files.
const ciDoc = "docs/ci.md"

// fencedBlocks are the ``` blocks of text, each as its lines.
func fencedBlocks(text string) [][]string {
	var out [][]string
	var cur []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```") && !in:
			in, cur = true, nil
		case strings.HasPrefix(line, "```"):
			in = false
			out = append(out, cur)
		case in:
			cur = append(cur, line)
		}
	}
	return out
}

// TestReadmeDeploySnippets: a snippet of docs/ci.md whose first line names a
// file (# deploy/compose.yaml) is an excerpt of that file, line for line.
func TestReadmeDeploySnippets(t *testing.T) {
	excerpts := 0
	for _, block := range fencedBlocks(ciPage(t)) {
		name, ok := strings.CutPrefix(block[0], "# ")
		if !ok || !slices.Contains(deployFiles, name) {
			continue
		}
		excerpts++
		lines := strings.Split(string(readRepoFile(t, name)), "\n")
		body := block[1:]
		found := false
		for i := 0; i+len(body) <= len(lines) && !found; i++ {
			found = slices.Equal(lines[i:i+len(body)], body)
		}
		if !found {
			t.Errorf(ciDoc+": the snippet of %s is not in the file:\n%s", name, strings.Join(body, "\n"))
		}
	}
	if excerpts < 8 {
		t.Errorf(ciDoc+": %d excerpts of the deployment files; want the workflow, action, image, compose and Kubernetes ones", excerpts)
	}
}

// userCommand is a command line a user runs; in a comment it is indented
// (#   docker build ...), unlike prose.
var userCommand = regexp.MustCompile(`^(?:#\s{2,})?((?:[A-Z_]+=\S+ )?(?:idemchaos|docker|kubectl) .*)$`)

// userCommands are the command lines of docs/ci.md (indented code
// and sh blocks) and of the deployment files' comments, continuation lines
// joined.
func userCommands(t *testing.T) []string {
	t.Helper()
	var texts [][]string
	var indented []string
	for _, line := range strings.Split(ciPage(t), "\n") {
		if code, ok := strings.CutPrefix(line, "    "); ok {
			indented = append(indented, code)
		}
	}
	texts = append(texts, indented)
	texts = append(texts, fencedBlocks(ciPage(t))...)
	for _, f := range deployFiles {
		var comments []string
		for _, line := range strings.Split(string(readRepoFile(t, f)), "\n") {
			if strings.HasPrefix(line, "#") {
				comments = append(comments, line)
			}
		}
		texts = append(texts, comments)
	}
	var out []string
	for _, lines := range texts {
		for i := 0; i < len(lines); i++ {
			m := userCommand.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			line := m[1]
			for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, `\`) + " " + strings.TrimLeft(strings.TrimPrefix(lines[i], "#"), " ")
			}
			out = append(out, line)
		}
	}
	return out
}

// TestReadmeDeployCommands: the docker, kubectl and idemchaos commands the
// docs/ci.md and the files' headers show, run by bash with fakes, name the
// images the Dockerfile builds with the stage that builds them, files that
// exist, Jobs the manifests define, and idemchaos command lines the CLI
// accepts.
func TestReadmeDeployCommands(t *testing.T) {
	lines := userCommands(t)
	script := filepath.Join(t.TempDir(), "commands.sh")
	if err := os.WriteFile(script, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runScript(t, []string{"bash", script}, map[string]string{"PWD": "/work"}, nil)
	if r.code != 0 || len(r.calls) != len(lines) {
		t.Fatalf("bash ran %d of the %d command lines, exit %d:\n%s\n%s", len(r.calls), len(lines), r.code, strings.Join(lines, "\n"), r.output)
	}
	jobs := manifestJobs(t)
	seen := map[string]int{}
	for _, c := range r.calls {
		key := c[0] + " " + c[1]
		switch {
		case c[0] == "idemchaos":
			if err := cliAccepts(c, map[string]string{scenarios.LedgerURLEnv: "postgres://u@ledger:5432/db"}); err != nil {
				t.Error(err)
			}
		case key == "docker build":
			checkDockerBuild(t, c)
		case key == "docker run":
			checkDockerRun(t, c)
		case c[0] == "kubectl" || key == "docker compose":
			checkKubectl(t, c, jobs)
		}
		seen[key]++
	}
	for key, min := range map[string]int{"docker build": 4, "docker run": 3, "docker compose": 4, "idemchaos matrix": 3, "idemchaos merge": 1,
		"kubectl apply": 3, "kubectl wait": 3, "kubectl logs": 3} {
		if seen[key] < min {
			t.Errorf("%d commands %q in "+ciDoc+" and the files' headers; want at least %d (commands found: %q)", seen[key], key, min, lines)
		}
	}
}

// checkDockerBuild: docker build [--target S] -t IMAGE . builds IMAGE from
// its stage (the last one without --target) of the root Dockerfile.
func checkDockerBuild(t *testing.T, c []string) {
	t.Helper()
	flags, pos := flagValues(c[2:])
	stages, _ := loadDockerfile(t)
	stage := flags["target"]
	if stage == "" {
		stage = stages[len(stages)-1].name
	}
	if want, ok := imageStages[flags["t"]]; !ok || stage != want || !slices.Equal(pos, []string{"."}) || flags["f"] != "" {
		t.Errorf("%q: want docker build [--target S] -t IMAGE . with IMAGE from its stage (%v)", c, imageStages)
	}
}

// dockerRunValued are the docker run options the commands use that take a
// value.
var dockerRunValued = []string{"-v", "-e", "--name", "-p", "--user"}

// checkDockerRun: docker run ... IMAGE ARGS runs ENTRYPOINT ARGS, which the
// CLI accepts.
func checkDockerRun(t *testing.T, c []string) {
	t.Helper()
	args := c[2:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if slices.Contains(dockerRunValued, args[0]) {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		t.Fatalf("%q: no image", c)
	}
	if _, ok := imageStages[args[0]]; !ok {
		t.Errorf("%q: image %s; want one of %v", c, args[0], imageStages)
		return
	}
	if err := cliAccepts(append(imageEntrypoint(t, args[0]), args[1:]...), nil); err != nil {
		t.Errorf("%q: %v", c, err)
	}
}

// manifestJobs are the Jobs of the manifests by name, with their
// namespace.
func manifestJobs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range []string{indexedJobFile, mergeJobFile, inClusterFile} {
		for _, o := range loadManifests(t, f) {
			if j, ok := o.(*batchv1.Job); ok {
				out[j.Name] = j.Namespace
			}
		}
	}
	return out
}

// checkKubectl: -f names a file of the repository; job/NAME a Job of the
// manifests, in the namespace -n says.
func checkKubectl(t *testing.T, c []string, jobs map[string]string) {
	t.Helper()
	flags, pos := flagValues(c[1:])
	if f, ok := flags["f"]; ok {
		if _, err := os.Stat(filepath.Join(repoRoot, f)); err != nil {
			t.Errorf("%q: %v", c, err)
		}
	}
	for _, p := range pos {
		if name, ok := strings.CutPrefix(p, "job/"); ok {
			if ns, known := jobs[name]; !known || ns != flags["n"] {
				t.Errorf("%q: no Job %s in namespace %q in the manifests (%v)", c, name, flags["n"], jobs)
			}
		}
	}
}
