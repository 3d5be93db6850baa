package conform

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one started target process.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	url  string

	mu   sync.Mutex
	tail []string // its last lines of output, for an error
}

// readyTimeout bounds a target's start.
const readyTimeout = time.Minute

// servingLine is how a target says where it serves: "NAME: listening on
// URL" (the conformance targets), "paymentd: strategy S on URL (...)" then
// "paymentd: ready".
var servingLine = regexp.MustCompile(`(?:listening on|strategy \S+ on) (http://[0-9.]+:[0-9]+)`)

// start starts bin with args and waits until it says where it serves.
// The process dies with the harness (a parent-death signal).
func start(ctx context.Context, name, bin string, args []string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		defer close(p.done)
		p.scan(out, ready)
		_ = cmd.Wait()
	}()
	select {
	case u := <-ready:
		p.url = u
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s exited before it served: %s", name, p.output())
	case <-time.After(readyTimeout):
		err = fmt.Errorf("%s did not serve within %s: %s", name, readyTimeout, p.output())
	case <-ctx.Done():
		err = ctx.Err()
	}
	return nil, errors.Join(err, p.stop())
}

// scan reads the process's output to its end, sends its URL on ready once
// it serves (paymentd: once it says it is ready), and keeps the last
// lines. Nothing else reads the pipe: a process whose output is no longer
// read blocks on its next write once the pipe is full.
func (p *process) scan(r io.Reader, ready chan<- string) {
	br := bufio.NewReaderSize(r, maxLine)
	sent, url := false, ""
	for {
		line, err := br.ReadSlice('\n')
		text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		for errors.Is(err, bufio.ErrBufferFull) { // a longer line: its start is kept
			_, err = br.ReadSlice('\n')
		}
		if len(line) > 0 {
			p.keep(text)
			if m := servingLine.FindStringSubmatch(text); m != nil {
				url = m[1]
			}
			if !sent && url != "" && (strings.Contains(text, "listening on") || text == "paymentd: ready") {
				ready <- url
				sent = true
			}
		}
		if err != nil { // io.EOF: the process closed its output
			return
		}
	}
}

// maxLine is as much of a line of output as scan keeps: the rest of a
// longer line is read and dropped.
const maxLine = 4 << 10

// keep adds line to the last lines of output.
func (p *process) keep(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tail = append(p.tail, line)
	if len(p.tail) > 8 {
		p.tail = p.tail[1:]
	}
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.tail) == 0 {
		return "no output"
	}
	return strings.Join(p.tail, " | ")
}

// stopGrace is how long a target is given to stop after SIGINT.
const stopGrace = 10 * time.Second

// stop interrupts the process and waits for it, killing it after stopGrace.
func (p *process) stop() error {
	if p == nil {
		return nil
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return nil
}
