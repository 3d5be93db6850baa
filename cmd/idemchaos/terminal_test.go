package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/idemchaos/idemchaos/scenarios"
)

// openPTY opens a pseudo-terminal cols columns wide, its output passed
// through as written (no newline translation): tty is the terminal side,
// for a process's stdout and stderr, term the side that reads what it
// printed.
func openPTY(t *testing.T, cols int) (term, tty *os.File) {
	t.Helper()
	term, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	fd := int(term.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	return term, tty
}

// cliOnTerminal runs the built CLI with stdout and stderr on a terminal
// cols columns wide, as a person's, and returns its exit code and all it
// printed.
func cliOnTerminal(t *testing.T, cols int, args ...string) (int, string) {
	t.Helper()
	term, tty := openPTY(t, cols)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(append(os.Environ(), storesEnv()...), "COLUMNS=") // the terminal says how wide
	cmd.Stdout, cmd.Stderr = tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds it now: the reads end when it exits
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, term) // ends with EIO once no process holds the terminal
		close(read)
	}()
	err := cmd.Wait()
	<-read
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

// ansi matches the colour escapes the views paint with.
var ansi = regexp.MustCompile("\033\\[[0-9;]*m")

// onScreen is what a terminal shows of out: each line as the last
// rewrite of it leaves it (a live line is rewritten after "\r\033[K"),
// without colour.
func onScreen(out string) string {
	lines := strings.Split(ansi.ReplaceAllString(out, ""), "\n")
	for i, l := range lines {
		if j := strings.LastIndex(l, "\r\033[K"); j >= 0 {
			lines[i] = l[j+len("\r\033[K"):]
		}
	}
	return strings.Join(lines, "\n")
}

// tail is the last n lines of s, without its final newline.
func tail(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[max(0, len(lines)-n):]
}

// matrixArgs is a small matrix with a caught flaw, saved in out.
func matrixArgs(out string) []string {
	return []string{"matrix", "--strategies", "none,pg-tx", "--scenarios", "missing-key,payload-mismatch,dropped-response", "--out", out}
}

// TestMatrixOnATerminal: on a terminal 120 columns wide the matrix shows
// its progress on one live line, rewritten in place and never wider than
// the terminal, says nothing of the stores it starts, and ends with the
// table, the verdict and one line naming the HTML report it wrote; no
// line is wider than the terminal.
func TestMatrixOnATerminal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, raw := cliOnTerminal(t, 120, matrixArgs(out)...)
	if code != exitPass {
		t.Fatalf("exit %d\n%s", code, raw)
	}
	screen := onScreen(raw)
	live := regexp.MustCompile("\r\033\\[K\\[[0-9]+/6 done\\] running [^\r\n]*").FindAllString(raw, -1)
	switch {
	case len(live) < 6:
		t.Errorf("%d rewrites of a live line; want one per cell at least:\n%q", len(live), raw)
	case strings.Contains(screen, "[1/6] "):
		t.Errorf("a line per cell on a terminal:\n%s", screen)
	case strings.Contains(screen, "stores: ") || strings.Contains(screen, "ready on"):
		t.Errorf("provisioning lines where the stores started well:\n%s", screen)
	}
	for _, l := range live {
		if n := len(l) - len("\r\033[K"); n >= 120 {
			t.Errorf("a live line of %d columns on a terminal of 120: %q", n, l)
		}
	}
	assertFits(t, "matrix on a terminal", screen, 120)
	assertEndsWithVerdictAndReport(t, screen, screen, out)
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("no HTML report in the run directory: %v", err)
	}
}

// TestMatrixInCI: where the output is no terminal (a CI log), the matrix
// prints a plain line per cell instead, and ends the same way, every line
// within COLUMNS.
func TestMatrixInCI(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	o := cliEnv(t, append(storesEnv(), "COLUMNS=120"), matrixArgs(out)...)
	if o.code != exitPass {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if n := len(regexp.MustCompile(`(?m)^\[[1-6]/6\] [a-z-]+ / [a-z-]+ seed 1: (pass|fail) \(`).FindAllString(o.stderr, -1)); n != 6 ||
		strings.Contains(o.stderr, "\r") {
		t.Errorf("%d lines of progress, want one per cell, and no live line:\n%s", n, o.stderr)
	}
	assertFits(t, "matrix in CI", o.stdout+o.stderr, 120)
	assertEndsWithVerdictAndReport(t, o.stdout, o.stderr, out)
}

// assertEndsWithVerdictAndReport: stdout ends with the table and the
// verdict, stderr with one line naming the HTML report (on a terminal,
// both are the screen); the evidence of the cells caught as declared is
// left to the report.
func assertEndsWithVerdictAndReport(t *testing.T, stdout, stderr, out string) {
	t.Helper()
	verdict := tail(stdout, 2)
	if stdout == stderr { // the report's line comes last
		verdict = tail(stdout, 3)[:2]
	}
	if !strings.HasPrefix(verdict[0], "Every cell as declared. The harness works: 1 flawed strategy caught in 3 cells") ||
		verdict[1] != "  pg-tx passed every scenario." || tail(stderr, 1)[0] != "HTML report: "+filepath.Join(out, "report.html") ||
		!strings.Contains(stdout, "\n6 runs: 3 pass, 3 fail, 0 inconclusive; 3 caught as declared, 0 not as declared;") {
		t.Errorf("it does not end with the table, the verdict and the report:\n%s\n%s", strings.Join(tail(stdout, 12), "\n"), stderr)
	}
	if strings.Contains(stdout, "repro: idemchaos run --strategy none") {
		t.Errorf("the evidence of the cells caught as declared is printed beside the report:\n%s", stdout)
	}
}

// TestLiveLineFitsTheTerminal: on a narrow terminal the live line is cut
// short of its width, so that rewriting it in place never leaves a wrapped
// half behind.
func TestLiveLineFitsTheTerminal(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, total: 330, tty: true, cols: 40}
	p.Start(scenarios.Cell{Strategy: "innodb-select-for-update", Scenario: "pg-async-commit-crash", Seed: 12})
	if line := strings.TrimPrefix(b.String(), "\r\033[K"); len(line) != 39 || !strings.HasPrefix(line, "[0/330 done] running innodb-") {
		t.Errorf("live line %q (%d columns) on a terminal of 40", line, len(line))
	}
}
