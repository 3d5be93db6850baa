package deploy

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The scripts of the deployment files (a Kubernetes container's sh -c, a
// workflow's or the action's run steps) run here for real, in the shell
// they name, with fake commands first on PATH: idemchaos, rm, docker and
// kubectl record
// their arguments and do nothing else. The fake idemchaos exits with
// $FAKE_EXIT_<subcommand>, else $FAKE_EXIT for a command that has a
// verdict, else 0; it creates the --out directory's results.json of a run
// that would have written it and writes its command line to stdout and to
// its -o file. Absolute paths it creates land under $FAKE_ROOT.

// fakeCommand is the script behind every fake.
const fakeCommand = `#!/bin/sh
printf '%s\037' "${0##*/}" "$@" >> "$FAKE_LOG"
printf '\036' >> "$FAKE_LOG"
[ "${0##*/}" = idemchaos ] || exit 0
code=${FAKE_EXIT:-0}
case $1 in report|list|help) code=0 ;; esac
eval "code=\${FAKE_EXIT_$1:-$code}"
echo "[fake idemchaos $*]"
prev=
for a in "$@"; do
  case $a in /*) at=$FAKE_ROOT$a ;; *) at=$a ;; esac
  case $prev in
    --out) case $code in 0|1|4) mkdir -p "$at" && : > "$at/results.json" ;; esac ;;
    -o) echo "[fake idemchaos $*]" > "$at" ;;
  esac
  prev=$a
done
exit "$code"
`

// fakes are the commands the fake directory holds.
var fakes = []string{"idemchaos", "rm", "docker", "kubectl"}

// scriptTimeout bounds one script: they only call the fakes.
const scriptTimeout = 20 * time.Second

// shellRun is what one script did.
type shellRun struct {
	calls  [][]string // each fake's name and arguments, in order
	code   int        // the script's exit code
	output string     // stdout and stderr
	dir    string     // its working directory
	root   string     // $FAKE_ROOT
}

// fakeDir writes the fake commands into a new directory.
func fakeDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range fakes {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fakeCommand), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runScript runs argv (a shell and its arguments, the script among them)
// in a new working directory, prepare's, with env and the fakes first on
// PATH.
func runScript(t *testing.T, argv []string, env map[string]string, prepare func(dir string)) shellRun {
	t.Helper()
	fakes := fakeDir(t)
	r := shellRun{dir: t.TempDir(), root: t.TempDir()}
	if prepare != nil {
		prepare(r.dir)
	}
	log := filepath.Join(t.TempDir(), "calls")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.dir
	cmd.Env = []string{"PATH=" + fakes + ":/usr/bin:/bin", "HOME=" + r.dir, "FAKE_LOG=" + log, "FAKE_ROOT=" + r.root}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(scriptTimeout, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	r.output = out.String()
	r.calls = readCalls(t, log)
	return r
}

// readCalls reads the fakes' log.
func readCalls(t *testing.T, log string) [][]string {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls [][]string
	for _, rec := range strings.Split(strings.TrimSuffix(string(b), "\036"), "\036") {
		if rec != "" {
			calls = append(calls, strings.Split(strings.TrimSuffix(rec, "\037"), "\037"))
		}
	}
	return calls
}

// idemchaosCalls are the idemchaos calls of a run.
func (r shellRun) idemchaosCalls() [][]string {
	var out [][]string
	for _, c := range r.calls {
		if c[0] == "idemchaos" {
			out = append(out, c)
		}
	}
	return out
}
