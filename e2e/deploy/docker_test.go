package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd   string   // FROM, RUN, COPY, ... (upper case)
	flags []string // leading --name=value options
	args  string   // the rest
	line  int
}

// exec is the exec (JSON) form of the arguments.
func (in instruction) exec() ([]string, error) {
	var out []string
	if !strings.HasPrefix(in.args, "[") {
		return nil, fmt.Errorf("line %d: %s %s is not in exec form", in.line, in.cmd, in.args)
	}
	if err := json.Unmarshal([]byte(in.args), &out); err != nil {
		return nil, fmt.Errorf("line %d: %s: %v", in.line, in.cmd, err)
	}
	return out, nil
}

func (in instruction) flag(name string) (string, bool) {
	for _, f := range in.flags {
		if v, ok := strings.CutPrefix(f, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// stage is a FROM and the instructions up to the next one.
type stage struct {
	name, base string
	ins        []instruction
}

// last is the stage's last instruction cmd, if any.
func (s stage) last(cmd string) (instruction, bool) {
	for i := len(s.ins) - 1; i >= 0; i-- {
		if s.ins[i].cmd == cmd {
			return s.ins[i], true
		}
	}
	return instruction{}, false
}

var dockerInstructions = []string{"FROM", "RUN", "COPY", "ADD", "ENV", "ARG", "USER", "WORKDIR", "ENTRYPOINT",
	"CMD", "EXPOSE", "LABEL", "HEALTHCHECK", "STOPSIGNAL", "SHELL", "VOLUME", "ONBUILD"}

// parseDockerfile reads the instructions and stages of a Dockerfile.
func parseDockerfile(text string) ([]stage, error) {
	var stages []stage
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		in := instruction{line: i + 1}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			line = strings.TrimSuffix(line, `\`)
			for i++; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "#"); i++ {
			}
			if i < len(lines) {
				line += " " + strings.TrimSpace(lines[i])
			}
		}
		word, rest, _ := strings.Cut(line, " ")
		in.cmd = strings.ToUpper(word)
		if !slices.Contains(dockerInstructions, in.cmd) {
			return nil, fmt.Errorf("line %d: unknown instruction %q", in.line, word)
		}
		rest = strings.TrimSpace(rest)
		for strings.HasPrefix(rest, "--") {
			f, r, _ := strings.Cut(rest, " ")
			in.flags, rest = append(in.flags, f), strings.TrimSpace(r)
		}
		in.args = rest
		if in.cmd == "FROM" {
			fields := strings.Fields(rest)
			s := stage{base: fields[0]}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				s.name = fields[2]
			} else if len(fields) != 1 {
				return nil, fmt.Errorf("line %d: FROM %s: want IMAGE [AS NAME]", in.line, rest)
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) == 0 {
			return nil, fmt.Errorf("line %d: %s before the first FROM", in.line, in.cmd)
		}
		stages[len(stages)-1].ins = append(stages[len(stages)-1].ins, in)
	}
	return stages, nil
}

// loadDockerfile parses the repository's Dockerfile, by stage name.
func loadDockerfile(t *testing.T) ([]stage, map[string]stage) {
	t.Helper()
	stages, err := parseDockerfile(string(readRepoFile(t, "Dockerfile")))
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	byName := map[string]stage{}
	for _, s := range stages {
		if _, dup := byName[s.name]; dup {
			t.Fatalf("Dockerfile: stage %q twice", s.name)
		}
		byName[s.name] = s
	}
	return stages, byName
}

// imageEntrypoint is the ENTRYPOINT of the stage an image is built from.
func imageEntrypoint(t *testing.T, image string) []string {
	t.Helper()
	_, byName := loadDockerfile(t)
	s, ok := byName[imageStages[image]]
	if !ok {
		t.Fatalf("image %s: no Dockerfile stage %q", image, imageStages[image])
	}
	return stageExec(t, s, "ENTRYPOINT")
}

// stageExec is the exec form of a stage's last ENTRYPOINT or CMD.
func stageExec(t *testing.T, s stage, cmd string) []string {
	t.Helper()
	in, ok := s.last(cmd)
	if !ok {
		t.Fatalf("stage %s has no %s", s.name, cmd)
	}
	argv, err := in.exec()
	if err != nil {
		t.Fatal(err)
	}
	return argv
}

// TestDockerfile: three stages (the builder, slim, full as the default
// target); the static CLI built once and copied into both runtime stages,
// which run it as their ENTRYPOINT as a user that is not root; the full one
// with Debian's redis-server and PostgreSQL where PG_BINDIR says.
func TestDockerfile(t *testing.T) {
	stages, byName := loadDockerfile(t)
	var names []string
	for i, s := range stages {
		names = append(names, s.name)
		checkCopies(t, s, stages[:i])
	}
	if !slices.Equal(names, []string{"build", "slim", "full"}) {
		t.Fatalf("stages %q; want build, slim, full (the last is what docker build makes without --target)", names)
	}
	binary := builtBinary(t, byName["build"])
	for _, name := range []string{"slim", "full"} {
		checkRuntimeStage(t, byName[name], binary)
	}
	checkFullStage(t, byName["full"])
}

// checkCopies: COPY --from names an earlier stage; the other COPY sources
// are files of the repository that the build context keeps.
func checkCopies(t *testing.T, s stage, earlier []stage) {
	t.Helper()
	ignore := dockerignore(t)
	for _, in := range s.ins {
		if in.cmd != "COPY" && in.cmd != "ADD" {
			continue
		}
		fields := strings.Fields(in.args)
		if from, ok := in.flag("from"); ok {
			if !slices.ContainsFunc(earlier, func(e stage) bool { return e.name == from }) {
				t.Errorf("line %d: COPY --from=%s: no earlier stage of that name", in.line, from)
			}
			continue
		}
		for _, src := range fields[:len(fields)-1] {
			if src == "." {
				continue
			}
			if _, err := os.Stat(filepath.Join(repoRoot, src)); err != nil {
				t.Errorf("line %d: COPY %s: %v", in.line, src, err)
			}
			if ignore.excludes(src) {
				t.Errorf("line %d: COPY %s, which .dockerignore leaves out of the context", in.line, src)
			}
		}
	}
}

var goBuildOut = regexp.MustCompile(`CGO_ENABLED=0 go build .*-o (\S+) \./cmd/idemchaos$`)

// builtBinary is where the build stage puts the static CLI.
func builtBinary(t *testing.T, s stage) string {
	t.Helper()
	for _, in := range s.ins {
		if m := goBuildOut.FindStringSubmatch(in.args); in.cmd == "RUN" && m != nil {
			return m[1]
		}
	}
	t.Fatalf("stage build: no RUN CGO_ENABLED=0 go build ... -o FILE ./cmd/idemchaos (a static CLI)")
	return ""
}

// checkRuntimeStage: the CLI copied from the build, the ENTRYPOINT, a user
// that is not root, and a CMD the CLI accepts.
func checkRuntimeStage(t *testing.T, s stage, binary string) {
	t.Helper()
	var installed string
	for _, in := range s.ins {
		if f := strings.Fields(in.args); in.cmd == "COPY" && len(f) == 2 && f[0] == binary {
			if from, _ := in.flag("from"); from == "build" {
				installed = f[1]
			}
		}
	}
	if installed == "" {
		t.Errorf("stage %s: no COPY --from=build %s", s.name, binary)
	}
	entry := imageEntrypoint(t, map[string]string{"slim": imageSlim, "full": imageFull}[s.name])
	if !slices.Equal(entry, []string{installed}) {
		t.Errorf("stage %s: ENTRYPOINT %q; want [%q], the CLI copied from the build", s.name, entry, installed)
	}
	if stageUID(t, s) == 0 {
		t.Errorf("stage %s runs as root", s.name)
	}
	if err := cliAccepts(append(entry, stageExec(t, s, "CMD")...), nil); err != nil {
		t.Errorf("stage %s: CMD: %v", s.name, err)
	}
}

// stageUID is the numeric user a stage runs as.
func stageUID(t *testing.T, s stage) int {
	t.Helper()
	in, ok := s.last("USER")
	if !ok {
		t.Fatalf("stage %s: no USER: it would run as root", s.name)
	}
	user, _, _ := strings.Cut(in.args, ":")
	uid, err := strconv.Atoi(user)
	if err != nil {
		t.Fatalf("stage %s: USER %s: give a numeric uid (Kubernetes checks runAsNonRoot on it)", s.name, in.args)
	}
	return uid
}

var (
	aptPostgres = regexp.MustCompile(`apt-get install .*\bredis-server\b.*\bpostgresql-(\d+)\b`)
	useraddUID  = regexp.MustCompile(`useradd --uid (\d+) `)
)

// checkFullStage: redis-server and a PostgreSQL of one major version
// installed, PG_BINDIR (what cmd/ hands provisioning as Config.PGBinDir)
// at that version's binaries, and the user created with the uid it runs as
// (initdb looks the user up by uid).
func checkFullStage(t *testing.T, s stage) {
	t.Helper()
	var major, bindir string
	uid := -1
	for _, in := range s.ins {
		if m := aptPostgres.FindStringSubmatch(in.args); in.cmd == "RUN" && m != nil {
			major = m[1]
		}
		if m := useraddUID.FindStringSubmatch(in.args); in.cmd == "RUN" && m != nil {
			uid, _ = strconv.Atoi(m[1])
		}
		if v, ok := strings.CutPrefix(in.args, "PG_BINDIR="); in.cmd == "ENV" && ok {
			bindir = v
		}
	}
	if major == "" {
		t.Fatal("stage full: no apt-get install of redis-server and postgresql-NN")
	}
	if want := "/usr/lib/postgresql/" + major + "/bin"; bindir != want {
		t.Errorf("stage full: PG_BINDIR %q; want %q, where Debian's postgresql-%s puts initdb and postgres", bindir, want, major)
	}
	if !strings.Contains(string(readRepoFile(t, "cmd/idemchaos/session.go")), `PGBinDir: os.Getenv("PG_BINDIR")`) {
		t.Error("cmd/idemchaos no longer reads PG_BINDIR into provision.Config.PGBinDir: the image's ENV is lost")
	}
	if runAs := stageUID(t, s); uid != runAs {
		t.Errorf("stage full: useradd --uid %d, USER %d: initdb needs the user it runs as to exist", uid, runAs)
	}
}

// ignorePattern is one line of a .dockerignore.
type ignorePattern struct {
	segments []string
	negate   bool
}

// ignoreFile is a .dockerignore, with Docker's semantics: the last pattern
// that matches a path or one of its parent directories decides; ** matches
// any number of directories; ! re-includes.
type ignoreFile []ignorePattern

func dockerignore(t *testing.T) ignoreFile {
	t.Helper()
	var out ignoreFile
	for _, line := range strings.Split(string(readRepoFile(t, ".dockerignore")), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := ignorePattern{}
		line, p.negate = strings.CutPrefix(line, "!")
		p.segments = strings.Split(strings.TrimPrefix(path.Clean(line), "/"), "/")
		out = append(out, p)
	}
	return out
}

func (f ignoreFile) excludes(rel string) bool {
	segs := strings.Split(path.Clean(rel), "/")
	excluded := false
	for _, p := range f {
		for n := 1; n <= len(segs); n++ {
			if matchSegments(p.segments, segs[:n]) {
				excluded = !p.negate
				break
			}
		}
	}
	return excluded
}

func matchSegments(pattern, segs []string) bool {
	if len(pattern) == 0 {
		return len(segs) == 0
	}
	if pattern[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegments(pattern[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, _ := path.Match(pattern[0], segs[0])
	return ok && matchSegments(pattern[1:], segs[1:])
}

// TestDockerignore: the build context keeps every file `go build
// ./cmd/idemchaos` reads (go.mod, go.sum, the Go files and embedded
// templates of every package of the module it imports) and drops .git.
func TestDockerignore(t *testing.T) {
	ignore := dockerignore(t)
	list := exec.Command("go", "list", "-deps", "-f",
		`{{if .Module}}{{if .Module.Main}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{"\n"}}{{end}}{{end}}`,
		"./cmd/idemchaos")
	list.Dir = repoRoot // the library's module, as the Dockerfile builds it
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	needed := []string{"go.mod", "go.sum"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		dir, err := filepath.Rel(root, fields[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fields[1:] {
			needed = append(needed, filepath.ToSlash(filepath.Join(dir, f)))
		}
	}
	if len(needed) < 50 {
		t.Fatalf("go list found %d files of the build; want the whole module's", len(needed))
	}
	for _, f := range needed {
		if ignore.excludes(f) {
			t.Errorf(".dockerignore leaves %s out of the build context; go build ./cmd/idemchaos reads it", f)
		}
	}
	for _, f := range []string{".git/config", "bin/idemchaos", "cmd/idemchaos/main_test.go", "docs/failpoints.md", "e2e/go.mod"} {
		if !ignore.excludes(f) {
			t.Errorf(".dockerignore keeps %s in the build context", f)
		}
	}
}
