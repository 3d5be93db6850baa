package conform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idemchaos/idemchaos/conformance"
)

// writeFiles writes files (path relative to dir: content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runs runs bin and returns its output.
func runs(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	return strings.TrimSpace(string(out))
}

func mainPrinting(s string) string {
	return "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"" + s + "\") }\n"
}

// TestBuildsGoOnce: a Go target is built with go build in its own module
// into Work, once for every target of that directory, however many rows
// ask for it at once; the program is the binary and the target's own
// arguments.
func TestBuildsGoOnce(t *testing.T) {
	t.Parallel()
	log := &lines{}
	b := &Builds{Source: t.TempDir(), Work: t.TempDir(), Log: log}
	writeFiles(t, b.Source, map[string]string{
		"targets/tgt/go.mod":  "module example.com/tgt\n\ngo 1.26\n",
		"targets/tgt/main.go": mainPrinting("tgt built"),
	})
	ts := []conformance.Target{
		{Name: "tgt-memory", Kind: conformance.Go, Dir: "targets/tgt", Args: []string{"--storage", "memory"}},
		{Name: "tgt-redis", Kind: conformance.Go, Dir: "targets/tgt", Args: []string{"--storage", "redis"}},
	}
	var wg sync.WaitGroup
	for range 2 {
		for _, tg := range ts {
			wg.Go(func() {
				bin, args, err := b.Program(context.Background(), tg)
				if err != nil {
					t.Errorf("%s: %v", tg.Name, err)
					return
				}
				if bin != filepath.Join(b.Work, "tgt") || !slices.Equal(args, tg.Args) {
					t.Errorf("%s: program %s %q; want %s %q", tg.Name, bin, args, filepath.Join(b.Work, "tgt"), tg.Args)
				}
			})
		}
	}
	wg.Wait()
	if n := log.count("go build"); n != 1 {
		t.Errorf("built %d times; want once:\n%s", n, log.buf.String())
	}
	if got := runs(t, filepath.Join(b.Work, "tgt")); got != "tgt built" {
		t.Errorf("the built program says %q", got)
	}
}

// TestBuildsPaymentd: the reference rows run paymentd built from the
// source's cmd/paymentd, once for both, with the row's strategy
// arguments.
func TestBuildsPaymentd(t *testing.T) {
	t.Parallel()
	log := &lines{}
	b := &Builds{Source: t.TempDir(), Work: t.TempDir(), Log: log}
	writeFiles(t, b.Source, map[string]string{
		"go.mod":               "module example.com/src\n\ngo 1.26\n",
		"cmd/paymentd/main.go": mainPrinting("paymentd built"),
	})
	refs, err := conformance.Lookup([]string{"pg-tx", "redis-pg-guard"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range refs {
		bin, args, err := b.Program(context.Background(), tg)
		if err != nil {
			t.Fatalf("%s: %v", tg.Name, err)
		}
		if bin != filepath.Join(b.Work, "paymentd") || !slices.Equal(args, tg.Args) || !slices.Contains(args, tg.Name) {
			t.Errorf("%s: program %s %q", tg.Name, bin, args)
		}
	}
	if n := log.count("go build"); n != 1 {
		t.Errorf("built %d times; want once:\n%s", n, log.buf.String())
	}
	if got := runs(t, filepath.Join(b.Work, "paymentd")); got != "paymentd built" {
		t.Errorf("the built program says %q", got)
	}
}

// TestBuildsGoFailure: a target that does not build is an error whose
// first line names the target and what was built, followed by the
// compiler's output; it is kept: the build is not tried again.
func TestBuildsGoFailure(t *testing.T) {
	t.Parallel()
	log := &lines{}
	b := &Builds{Source: t.TempDir(), Work: t.TempDir(), Log: log}
	writeFiles(t, b.Source, map[string]string{
		"broken/go.mod":  "module example.com/broken\n\ngo 1.26\n",
		"broken/main.go": "package main\n\nfunc main() {\n",
	})
	tg := conformance.Target{Name: "broken-target", Kind: conformance.Go, Dir: "broken"}
	_, _, err := b.Program(context.Background(), tg)
	if err == nil {
		t.Fatal("a target that does not compile built")
	}
	first, rest, _ := strings.Cut(err.Error(), "\n")
	if first != "target broken-target: building broken: exit status 1" || !strings.Contains(rest, "main.go:4") {
		t.Errorf("error %q; want its first line to name the target and the build, then the compiler's output", err)
	}
	_, _, again := b.Program(context.Background(), tg)
	if again == nil || again.Error() != err.Error() {
		t.Errorf("asked again: %v", again)
	}
	if n := log.count("go build"); n != 1 {
		t.Errorf("built %d times; want once", n)
	}
}

// TestBuildsUnknownKind: a target of no known kind is an error naming it.
func TestBuildsUnknownKind(t *testing.T) {
	b := &Builds{Source: t.TempDir(), Work: t.TempDir()}
	_, _, err := b.Program(context.Background(), conformance.Target{Name: "rusty", Kind: "cargo"})
	if err == nil || err.Error() != `target rusty: unknown kind "cargo"` {
		t.Errorf("error %v", err)
	}
}

// nodeOnly is a PATH on which node is found and nothing else (npm not).
func nodeOnly(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil { // in CI a failure, never a skip: the Node targets need it
		t.Fatalf("the Node conformance targets need Node.js and npm (scripts/setup): %v", err)
	}
	dir := t.TempDir()
	if err := os.Symlink(node, filepath.Join(dir, "node")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func lockSum(lock string) string {
	sum := sha256.Sum256([]byte(lock))
	return hex.EncodeToString(sum[:])
}

// TestBuildsNodeTools: a Node target runs node DIR/server.js with its
// arguments; its dependencies installed from the same lock file need no
// npm again. Without node, or without npm when the lock file changed, the
// error is one line that says what is missing and how to install it.
func TestBuildsNodeTools(t *testing.T) {
	const lock = `{"name": "n", "lockfileVersion": 3}`
	log := &lines{}
	b := &Builds{Source: t.TempDir(), Work: t.TempDir(), Log: log}
	writeFiles(t, b.Source, map[string]string{
		"conformance/n/package-lock.json":             lock,
		"conformance/n/node_modules/" + installedMark: lockSum(lock),
	})
	tg := conformance.Target{Name: "n-memory", Kind: conformance.Node, Dir: "conformance/n", Args: []string{"--storage", "memory"}}
	path := nodeOnly(t)
	t.Setenv("PATH", path)
	bin, args, err := b.Program(context.Background(), tg)
	want := []string{filepath.Join(b.Source, "conformance/n/server.js"), "--storage", "memory"}
	if err != nil || bin != filepath.Join(path, "node") || !slices.Equal(args, want) {
		t.Errorf("program %s %q, %v; want %s %q", bin, args, err, filepath.Join(path, "node"), want)
	}
	if n := log.count("npm"); n != 0 {
		t.Errorf("npm ran for a lock file already installed:\n%s", log.buf.String())
	}

	writeFiles(t, b.Source, map[string]string{"conformance/n/package-lock.json": lock + "\n"})
	_, _, err = (&Builds{Source: b.Source, Work: b.Work}).Program(context.Background(), tg)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "target n-memory: building conformance/n: npm: ") ||
		!strings.HasSuffix(err.Error(), "(install nodejs and npm: scripts/setup)") {
		t.Errorf("a changed lock file without npm: %v", err)
	}

	t.Setenv("PATH", t.TempDir())
	_, _, err = (&Builds{Source: b.Source, Work: b.Work}).Program(context.Background(), tg)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "target n-memory needs Node.js: ") ||
		!strings.HasSuffix(err.Error(), "(install nodejs and npm: scripts/setup)") {
		t.Errorf("without node: %v", err)
	}
}

// TestBuildsNpmCI: npm ci installs a Node target's dependencies from its
// lock file and marks them installed with the lock file's digest; a later
// run with the same lock file does not run it again, one with another
// lock file does.
func TestBuildsNpmCI(t *testing.T) {
	t.Parallel()
	src, lock := npmSource(t)
	log := &lines{}
	tg := conformance.Target{Name: "n-memory", Kind: conformance.Node, Dir: "n"}
	install := func() {
		t.Helper()
		if _, _, err := (&Builds{Source: src, Work: t.TempDir(), Log: log}).Program(context.Background(), tg); err != nil {
			t.Fatal(err)
		}
	}
	install()
	if n := log.count("npm ci"); n != 1 {
		t.Fatalf("npm ci ran %d times; want once", n)
	}
	if _, err := os.Stat(filepath.Join(src, "n/node_modules/dep/index.js")); err != nil {
		t.Errorf("the dependency was not installed: %v", err)
	}
	mark, err := os.ReadFile(filepath.Join(src, "n/node_modules", installedMark))
	if err != nil || string(mark) != lockSum(lock) {
		t.Errorf("install mark %q, %v; want the lock file's digest", mark, err)
	}
	install()
	if n := log.count("npm ci"); n != 1 {
		t.Errorf("npm ci ran again for the same lock file")
	}
	changed := strings.Replace(lock, `"requires": true`, `"requires": true `, 1)
	writeFiles(t, src, map[string]string{"n/package-lock.json": changed})
	install()
	if n := log.count("npm ci"); n != 2 {
		t.Errorf("npm ci did not run for a changed lock file")
	}
	if mark, _ := os.ReadFile(filepath.Join(src, "n/node_modules", installedMark)); string(mark) != lockSum(changed) {
		t.Errorf("install mark %q after the new lock file; want its digest", mark)
	}
}

// npmSource is a source tree with one Node target, n, whose lock file
// names a dependency in the tree itself: npm ci needs no registry for it.
func npmSource(t *testing.T) (src, lock string) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil { // in CI a failure, never a skip
		t.Fatalf("the Node conformance targets need npm (scripts/setup): %v", err)
	}
	lock = `{
  "name": "n", "version": "1.0.0", "lockfileVersion": 3, "requires": true,
  "packages": {
    "": {"name": "n", "version": "1.0.0", "dependencies": {"dep": "file:./dep"}},
    "dep": {"version": "1.0.0"},
    "node_modules/dep": {"resolved": "dep", "link": true}
  }
}
`
	src = t.TempDir()
	writeFiles(t, src, map[string]string{
		"n/package.json":      `{"name": "n", "version": "1.0.0", "private": true, "dependencies": {"dep": "file:./dep"}}`,
		"n/package-lock.json": lock,
		"n/dep/package.json":  `{"name": "dep", "version": "1.0.0"}`,
		"n/dep/index.js":      "module.exports = 42;\n",
	})
	return src, lock
}

// TestBuildsNpmCIOneAtATime: two installs of one directory at once (two
// processes on a fresh clone; here two Builds, whose locks are per open
// file all the same) run npm ci once: the second waits on the first's
// lock, then finds the lock file installed.
func TestBuildsNpmCIOneAtATime(t *testing.T) {
	t.Parallel()
	src, _ := npmSource(t)
	log := &lines{}
	tg := conformance.Target{Name: "n-memory", Kind: conformance.Node, Dir: "n"}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			_, _, errs[i] = (&Builds{Source: src, Work: t.TempDir(), Log: log}).Program(context.Background(), tg)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := log.count("npm ci"); n != 1 {
		t.Errorf("npm ci ran %d times for two installs at once; want once", n)
	}
	if _, err := os.Stat(filepath.Join(src, "n/node_modules/dep/index.js")); err != nil {
		t.Errorf("the dependency was not installed: %v", err)
	}
}
