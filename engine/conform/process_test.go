package conform

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScanSaysWhereTargetServes: a conformance target is ready once it
// says "listening on URL"; paymentd once it has named its URL and then
// said "paymentd: ready", not before; nothing else counts. The last lines
// are kept for an error, of a long line its start.
func TestScanSaysWhereTargetServes(t *testing.T) {
	cases := []struct {
		name, out, url string
	}{
		{"library", "fiber: connecting\nfiber: listening on http://127.0.0.1:4321\n", "http://127.0.0.1:4321"},
		{"node", "node-idempotency: listening on http://127.0.0.1:5\nlater\n", "http://127.0.0.1:5"},
		{"paymentd ready", "paymentd: strategy pg-tx on http://127.0.0.1:7 (claim ttl 250ms)\npaymentd: migrating\npaymentd: ready\n", "http://127.0.0.1:7"},
		{"paymentd not yet ready", "paymentd: strategy pg-tx on http://127.0.0.1:7 (claim ttl 250ms)\n", ""},
		{"ready before its URL", "paymentd: ready\n", ""},
		{"a URL in another line", "fetching http://127.0.0.1:9 failed\n", ""},
		{"no newline at the end", "fiber: listening on http://127.0.0.1:8", "http://127.0.0.1:8"},
		{"after a line of 100 KiB", strings.Repeat("x", 100<<10) + "\r\nfiber: listening on http://127.0.0.1:6\r\n", "http://127.0.0.1:6"},
	}
	for _, c := range cases {
		p := &process{name: c.name}
		ready := make(chan string, 1)
		p.scan(strings.NewReader(c.out), ready)
		got := ""
		select {
		case got = <-ready:
		default:
		}
		if got != c.url {
			t.Errorf("%s: ready with %q; want %q", c.name, got, c.url)
		}
	}
	p := &process{name: "chatty"}
	var out strings.Builder
	for i := range 20 {
		out.WriteString("line " + string(rune('a'+i)) + "\n")
	}
	p.scan(strings.NewReader(out.String()), make(chan string, 1))
	if got, want := p.output(), "line m | line n | line o | line p | line q | line r | line s | line t"; got != want {
		t.Errorf("output %q; want the last 8 lines, %q", got, want)
	}
	p = &process{name: "long"}
	p.scan(strings.NewReader(strings.Repeat("y", 3*maxLine)+"\nend"), make(chan string, 1))
	if got, want := p.output(), strings.Repeat("y", maxLine)+" | end"; got != want {
		t.Errorf("a long line kept as %d bytes then %q; want its first %d, then \"end\"", len(got), got[max(0, len(got)-10):], maxLine)
	}
	if got := (&process{}).output(); got != "no output" {
		t.Errorf("silent process: output %q", got)
	}
}

// TestStartAndStop: start returns once the target says where it serves,
// with that URL; stop interrupts it (it stops on its own, gracefully) and
// returns once it has exited and been waited for: nothing is left
// behind.
func TestStartAndStop(t *testing.T) {
	t.Parallel()
	mark := newMark()
	killLeftovers(t, mark)
	p, err := start(context.Background(), "fake", self(t), []string{fakeTargetArg, "--mark", mark})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.url, "http://127.0.0.1:") {
		t.Errorf("url %q", p.url)
	}
	resp, err := http.Get(p.url + "/args")
	if err != nil {
		t.Fatalf("the started target does not serve at %s: %v", p.url, err)
	}
	resp.Body.Close()
	if len(running(mark)) != 1 {
		t.Fatalf("running: %q; want the one target", running(mark))
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	default:
		t.Error("stop returned before the process was waited for")
	}
	noneRunning(t, mark)
	if !strings.Contains(p.output(), "faketarget: interrupted, stopping") {
		t.Errorf("the target was not interrupted (SIGINT) to stop: its output %q", p.output())
	}
	if err := (*process)(nil).stop(); err != nil {
		t.Errorf("stopping no process: %v", err)
	}
}

// TestStartFailures: a target that exits before it says where it serves,
// or whose start is given up (ctx), is a one-line error naming it, with
// its last output; no process is left behind either way.
func TestStartFailures(t *testing.T) {
	t.Parallel()
	t.Run("exits", func(t *testing.T) {
		mark := newMark()
		killLeftovers(t, mark)
		p, err := start(context.Background(), "fiber-memory.ietf replica 0", self(t),
			[]string{fakeTargetArg, "--mark", mark, "--exit-with", "listen tcp: address already in use"})
		if p != nil || err == nil {
			t.Fatalf("start: %v, %v; want an error", p, err)
		}
		want := "fiber-memory.ietf replica 0 exited before it served: faketarget: starting | faketarget: listen tcp: address already in use"
		if err.Error() != want {
			t.Errorf("error %q\nwant  %q", err, want)
		}
		noneRunning(t, mark)
	})
	t.Run("not found", func(t *testing.T) {
		_, err := start(context.Background(), "ghost", "/nonexistent/bin/target", nil)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "start ghost: ") {
			t.Errorf("error %q; want one line, start ghost: ...", err)
		}
	})
	t.Run("given up", func(t *testing.T) {
		mark := newMark()
		killLeftovers(t, mark)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			// the target runs (and never says where it serves) before the
			// start is given up
			await(time.Minute, func() bool { return len(running(mark)) > 0 })
			cancel()
		}()
		p, err := start(ctx, "silent", self(t), []string{fakeTargetArg, "--mark", mark, "--silent"})
		if p != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("start: %v, %v; want context.Canceled", p, err)
		}
		noneRunning(t, mark)
	})
}

// TestStopKillsATargetThatIgnoresInterrupt: a target that ignores SIGINT
// is killed after stopGrace; stop still returns with it gone.
func TestStopKillsATargetThatIgnoresInterrupt(t *testing.T) {
	t.Parallel()
	mark := newMark()
	killLeftovers(t, mark)
	p, err := start(context.Background(), "stubborn", self(t), []string{fakeTargetArg, "--mark", mark, "--ignore-sigint"})
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- p.stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(stopGrace + 30*time.Second):
		t.Fatalf("stop did not return %s after the interrupt", stopGrace+30*time.Second)
	}
	noneRunning(t, mark)
	if strings.Contains(p.output(), "interrupted") {
		t.Fatalf("the target did not ignore SIGINT: %q", p.output())
	}
}

// TestTargetDiesWithTheHarness: a target started by a harness that dies
// (killed, no chance to stop it) dies too.
func TestTargetDiesWithTheHarness(t *testing.T) {
	t.Parallel()
	mark := newMark()
	killLeftovers(t, mark)
	h := exec.Command(self(t), harnessArg, mark)
	out, err := h.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "harness: child serving at http://") {
		_ = h.Process.Kill()
		_ = h.Wait()
		t.Fatalf("the harness said %q", line)
	}
	_ = h.Process.Signal(syscall.SIGKILL)
	_ = h.Wait()
	if !await(10*time.Second, func() bool { return len(running(mark)) == 0 }) {
		t.Errorf("the harness was killed; its target still runs 10 s later: %q", running(mark))
	}
}

// TestStartReadsEveryLine: a line of output of 100 KiB neither hides the
// serving line after it nor stops the output being read (a target whose
// output nobody reads blocks on its next write once the pipe is full, and
// stops serving). Of a long line, only its start is kept for an error.
func TestStartReadsEveryLine(t *testing.T) {
	t.Parallel()
	mark := newMark()
	killLeftovers(t, mark)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := start(ctx, "verbose", self(t), []string{fakeTargetArg, "--mark", mark, "--long-line"})
	if err != nil {
		t.Fatalf("the serving line after a line of 100 KiB: %v", err)
	}
	defer p.stop()
	client := http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(p.url + "/spew") // answers after 356 KiB of output
	if err != nil {
		t.Fatalf("the target stopped serving once it wrote a long line and more: %v", err)
	}
	resp.Body.Close()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	out := p.output()
	if !strings.Contains(out, "faketarget: spewed | faketarget: interrupted, stopping") {
		t.Errorf("the output after a long line was not kept: %.200q", out)
	}
	if len(out) > 8*(maxLine+3) {
		t.Errorf("the kept output is %d bytes long", len(out))
	}
}
