package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/sim/load"
	"github.com/idemchaos/idemchaos/targets/api"
)

// vegeta drives a strategy's target, deployed as idemchaos's bench deploys
// it, with vegeta's open model: the requests idemchaos's open model sends
// (the same seed, so the same keys, bodies and retries) at the same rate,
// one connection per request as idemchaos's default. Its targets are
// written to its stdin as it reads them (-lazy), so no file holds them.
type vegeta struct {
	cfg  Config
	b    *engine.Bencher
	open load.Config
}

func (v vegeta) taker(name string) func(context.Context, int) (sample, error) {
	return func(ctx context.Context, round int) (sample, error) { return v.take(ctx, name, round) }
}

func (v vegeta) take(ctx context.Context, name string, round int) (sample, error) {
	results := filepath.Join(v.cfg.Dir, fmt.Sprintf("vegeta-%s-%d.bin", name, round+1))
	_, cpu, err := underTool(ctx, v.cfg, v.b, name, "vegeta", func(ctx context.Context, url string) (toolRun, error) {
		return runToolInput(ctx, v.cfg, fmt.Sprintf("vegeta-%s-%d.txt", name, round+1),
			newTargets(url+api.PathCharges, v.open), nil, v.cfg.Vegeta, "attack", "-lazy", "-format=json",
			"-rate="+vegetaRate(v.open.Rate), "-duration="+v.open.Duration.String(), "-keepalive=false",
			"-timeout="+v.cfg.Timeout.String(), "-output="+results)
	})
	if err != nil {
		return sample{}, err
	}
	rep, err := runTool(ctx, v.cfg, fmt.Sprintf("vegeta-%s-%d.json", name, round+1), nil, v.cfg.Vegeta,
		"report", "-type=json", results)
	if err != nil {
		return sample{}, err
	}
	p50, n, err := VegetaP50(rep.out)
	return sample{value: p50, count: n, cpu: cpu}, err
}

// vegetaRate is the open model's rate as vegeta's -rate: whole requests
// per second, or per 1000 s for a fractional rate.
func vegetaRate(rate float64) string {
	if rate == math.Trunc(rate) {
		return strconv.FormatFloat(rate, 'f', 0, 64) + "/1s"
	}
	return strconv.FormatFloat(math.Round(rate*1000), 'f', 0, 64) + "/1000s"
}

// vegetaTarget is one request in vegeta's JSON target format (the body is
// base64, as encoding/json writes a []byte).
type vegetaTarget struct {
	Method string              `json:"method"`
	URL    string              `json:"url"`
	Body   []byte              `json:"body"`
	Header map[string][]string `json:"header"`
}

// targets reads as vegeta's JSON targets, one line per request of the
// open model: every request it schedules, then a second's more so that
// vegeta never runs short at the end of its window.
type targets struct {
	url      string
	gen      *load.Gen
	next, n  int
	line     bytes.Buffer
	encodeTo *json.Encoder
}

func newTargets(url string, open load.Config) *targets {
	t := &targets{url: url, gen: load.NewGen(open), n: open.Scheduled() + int(math.Ceil(open.Rate))}
	t.encodeTo = json.NewEncoder(&t.line)
	return t
}

func (t *targets) Read(p []byte) (int, error) {
	for t.line.Len() == 0 {
		if t.next == t.n {
			return 0, io.EOF
		}
		if err := t.encodeTo.Encode(t.target(t.gen.Next(t.next))); err != nil {
			return 0, err
		}
		t.next++
	}
	return t.line.Read(p)
}

func (t *targets) target(r load.Request) vegetaTarget {
	body, _ := json.Marshal(api.ChargeRequest{Account: r.Account, Amount: r.Amount, Currency: r.Currency})
	return vegetaTarget{Method: "POST", URL: t.url, Body: body,
		Header: map[string][]string{"Content-Type": {"application/json"}, api.HeaderKey: {r.Key}}}
}

// vegetaReport is the part of `vegeta report -type=json` read here.
type vegetaReport struct {
	Latencies struct {
		P50 float64 `json:"50th"` // nanoseconds
	} `json:"latencies"`
	Requests    float64        `json:"requests"`
	StatusCodes map[string]int `json:"status_codes"`
	Errors      []string       `json:"errors"`
}

// VegetaP50 reads the median latency (ms) and the number of requests of a
// vegeta report. A report where more than 1 % of the requests got no
// answer is an error naming vegeta's first error.
func VegetaP50(out []byte) (p50ms, requests float64, err error) {
	var r vegetaReport
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, 0, fmt.Errorf("vegeta report: %v:\n%s", err, tail(out))
	}
	if r.Requests <= 0 {
		return 0, 0, fmt.Errorf("vegeta sent no request:\n%s", tail(out))
	}
	if lost := float64(r.StatusCodes["0"]); lost > r.Requests/100 {
		first := ""
		if len(r.Errors) > 0 {
			first = ": " + r.Errors[0]
		}
		return 0, 0, fmt.Errorf("vegeta: %.0f of %.0f requests got no answer%s", lost, r.Requests, first)
	}
	return r.Latencies.P50 / 1e6, r.Requests, nil
}
