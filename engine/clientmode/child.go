package clientmode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
)

// childOut is what the client's process said and how it ended.
type childOut struct {
	told   []history.Told
	unread []string
	exit   string
}

// maxLine is as much of one line of the client's output as is read; the
// rest of a longer line is dropped.
const maxLine = 64 << 10

// runChild runs the client to its end or the run's bound, reading the
// outcome lines it prints. Its process group dies with it, with the
// harness (a parent-death signal) and on ctx.
func runChild(ctx context.Context, cfg Config, env []string, ops []history.Operation) (childOut, error) {
	bound, cancel := context.WithTimeout(ctx, cfg.Bound)
	defer cancel()
	cmd := exec.CommandContext(bound, cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir, cmd.Env = cfg.Dir, append(append([]string(nil), cfg.Environ...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	cmd.Stderr = outputOf(cfg)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return childOut{}, err
	}
	if err := cmd.Start(); err != nil {
		return childOut{}, fmt.Errorf("starting the client %q: %w", cfg.Command[0], err)
	}
	t0 := time.Now()
	out := read(stdout, outputOf(cfg), ops, t0)
	err = cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left running in its group
	switch {
	case ctx.Err() != nil:
		return out, ctx.Err()
	case bound.Err() != nil:
		out.exit = fmt.Sprintf("killed at the run's bound (%s)", cfg.Bound)
	case err != nil:
		out.exit = err.Error()
	}
	return out, nil
}

// read reads the client's output lines to its end, copying them to echo.
func read(r io.Reader, echo io.Writer, ops []history.Operation, t0 time.Time) childOut {
	var out childOut
	br := bufio.NewReaderSize(r, maxLine)
	for {
		line, err := br.ReadSlice('\n')
		text := strings.TrimRight(string(line), "\r\n") // before the buffer is read into again
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if len(line) > 0 {
			fmt.Fprintln(echo, text)
			out.add(text, ops, time.Since(t0))
		}
		if err != nil {
			return out
		}
	}
}

// add reads one line the client printed into out and returns the
// operation it names ("": none, a log line of the client's own).
func (out *childOut) add(line string, ops []history.Operation, at time.Duration) string {
	told, ok, err := scenarios.ParseTold(line, ops, at)
	switch {
	case err != nil:
		out.unread = append(out.unread, err.Error())
	case ok:
		out.told = append(out.told, told)
	default:
		return ""
	}
	return told.Op
}

// commandLine is the client's command line, for the repro ("": a Go
// client, named by its test).
func commandLine(cfg Config) string { return strings.Join(cfg.Command, " ") }

func logOf(cfg Config) io.Writer {
	if cfg.Log == nil {
		return io.Discard
	}
	return cfg.Log
}

func outputOf(cfg Config) io.Writer {
	if cfg.Output == nil {
		return io.Discard
	}
	return cfg.Output
}
