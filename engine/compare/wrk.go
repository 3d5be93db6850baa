package compare

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/idemchaos/idemchaos/targets/strategy/design"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
)

// WrkScript is the wrk script: fresh keys and retries of a recent key with
// its body, in the duplicate ratio.
//
//go:embed idem.lua
var WrkScript string

// wrk drives a strategy's target, deployed as idemchaos's bench deploys
// it, over keep-alive connections.
type wrk struct {
	cfg Config
	b   *engine.Bencher
}

func (w wrk) taker(name string) func(context.Context, int) (sample, error) {
	return func(ctx context.Context, round int) (sample, error) { return w.take(ctx, name, round) }
}

func (w wrk) take(ctx context.Context, name string, round int) (sample, error) {
	script := filepath.Join(w.cfg.Dir, "idem.lua")
	if err := os.WriteFile(script, []byte(WrkScript), 0o644); err != nil {
		return sample{}, err
	}
	run, cpu, err := underTool(ctx, w.cfg, w.b, name, "wrk", func(ctx context.Context, url string) (toolRun, error) {
		return runTool(ctx, w.cfg, fmt.Sprintf("wrk-%s-%d.txt", name, round+1),
			[]string{"DUP_RATIO=" + strconv.FormatFloat(w.cfg.DupRatio, 'g', -1, 64), "ACCOUNTS=" + strconv.Itoa(load.DefaultAccounts)},
			w.cfg.Wrk, "-t", strconv.Itoa(threads(w.cfg.Concurrency)), "-c", strconv.Itoa(w.cfg.Concurrency),
			"-d", strconv.Itoa(int(math.Ceil(w.cfg.Duration.Seconds())))+"s", "--timeout", "2s", "-s", script, url+api.PathCharges)
	})
	if err != nil {
		return sample{}, err
	}
	rps, err := WrkRPS(run.out)
	if err != nil {
		return sample{}, err
	}
	n, err := count(wrkCount, run.out, "wrk")
	return sample{value: rps, count: n, cpu: cpu}, err
}

// underTool serves a strategy's target while run drives it with an outside
// load tool, and reads the CPU time every part spent meanwhile. A correct
// strategy that double-charged under the tool stops the comparison (none
// double-charges every duplicate).
func underTool(ctx context.Context, c Config, b *engine.Bencher, name, tool string,
	run func(ctx context.Context, url string) (toolRun, error)) (toolRun, reading, error) {
	var out toolRun
	var cpu reading
	served, err := b.ServeWhile(ctx, name, "127.0.0.1:0", func(ctx context.Context, url string) error {
		win := c.cpu.begin()
		var err error
		out, err = run(ctx, url)
		cpu = win.end(out.cpu)
		return err
	})
	if err == nil && served.DoubleCharged > 0 && name != design.Baseline {
		err = fmt.Errorf("%s under %s: %d keys charged more than once", name, tool, served.DoubleCharged)
	}
	return out, cpu, err
}

var (
	rpsLine  = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	wrkCount = regexp.MustCompile(`(?m)^\s*([0-9]+) requests in `)
)

// count reads the number of requests or transactions a tool reports.
func count(re *regexp.Regexp, out []byte, tool string) (float64, error) {
	m := re.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s printed no count of what it sent:\n%s", tool, tail(out))
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// WrkRPS reads the requests per second wrk reports.
func WrkRPS(out []byte) (float64, error) {
	m := rpsLine.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("wrk printed no Requests/sec line:\n%s", tail(out))
	}
	return strconv.ParseFloat(string(m[1]), 64)
}
