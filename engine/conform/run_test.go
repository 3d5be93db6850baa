package conform

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/idemchaos/idemchaos/conformance"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/api"
)

// recorder is a watcher, not safe for concurrent use (Run serializes its
// calls: TestSerialWatch).
type recorder struct {
	started  []string
	finished []string
	records  map[string]scenarios.Record
}

func (r *recorder) Start(c scenarios.Cell) { r.started = append(r.started, c.Strategy) }

func (r *recorder) Finish(res scenarios.Result, rec scenarios.Record) {
	r.finished = append(r.finished, res.Strategy)
	if r.records == nil {
		r.records = map[string]scenarios.Record{}
	}
	r.records[res.Strategy] = rec
}

// blockingWatcher says when a call has entered it, and returns once
// released.
type blockingWatcher struct{ entered, release chan struct{} }

func (w blockingWatcher) Start(scenarios.Cell) { w.entered <- struct{}{}; <-w.release }
func (w blockingWatcher) Finish(scenarios.Result, scenarios.Record) {
	w.entered <- struct{}{}
	<-w.release
}

// TestSerialWatch: rows run side by side, but their calls reach the
// plan's watcher one at a time: each holds the lock while in it. No
// watcher, no call.
func TestSerialWatch(t *testing.T) {
	w := blockingWatcher{entered: make(chan struct{}), release: make(chan struct{})}
	s := &serialWatch{w: w}
	for name, call := range map[string]func(){
		"Start":  func() { s.Start(scenarios.Cell{}) },
		"Finish": func() { s.Finish(scenarios.Result{}, scenarios.Record{}) },
	} {
		done := make(chan struct{})
		go func() { defer close(done); call() }()
		<-w.entered
		if s.mu.TryLock() {
			s.mu.Unlock()
			t.Errorf("%s: another call could enter the watcher meanwhile", name)
		}
		w.release <- struct{}{}
		<-done
	}
	none := &serialWatch{}
	none.Start(scenarios.Cell{})
	none.Finish(scenarios.Result{}, scenarios.Record{})
}

// noProxiesLeft fails the test if the session's Toxiproxy holds a proxy.
func noProxiesLeft(t *testing.T, e Env) {
	t.Helper()
	proxies, err := toxiclient.NewClient(e.Session.Toxi.URL).Proxies()
	if err != nil {
		t.Fatal(err)
	}
	for name := range proxies {
		t.Errorf("proxy %s left after the run", name)
	}
}

// TestRunParallelBounds: a plan runs 1 to 4 rows at once.
func TestRunParallelBounds(t *testing.T) {
	for _, n := range []int{0, 5} {
		if _, err := Run(context.Background(), Env{}, Plan{Parallel: n}); err == nil {
			t.Errorf("parallel %d ran", n)
		}
	}
}

// TestRunSettlesTheLedger: two rows run side by side, each target
// started, its runnable cells run through the engine as against a user's
// service and its other scenarios skipped with why, then stopped. One
// target writes each charge's ledger row 2 s after it answered (past its
// 1 s claim timeout): its ledger keeps moving after the last request, and
// is read until it is quiet, every charge in it; the other's is quiet at
// once, and is not waited on for the whole settle bound. The results come
// in row order, whichever row finished first; nothing is left running.
func TestRunSettlesTheLedger(t *testing.T) {
	t.Parallel()
	const late = 2 * time.Second
	mark := newMark()
	killLeftovers(t, mark)
	e := newEnv(t, fakeBuilds(t))
	row := func(name string, args ...string) Row {
		return Row{Profile: api.IETF, Target: conformance.Target{Name: name, Kind: conformance.Go, Dir: fakeDir,
			Args: append([]string{fakeTargetArg, "--mark", mark}, args...), Replicas: 1, ClaimTimeout: time.Second}}
	}
	watch := &recorder{}
	p := Plan{Rows: []Row{row("late", "--late", late.String()), row("prompt")}, Scenarios: []string{"payload-mismatch", "key-expiry"},
		Seeds: []uint64{1}, Parallel: 2, Watch: watch}
	out, err := Run(context.Background(), e, p)
	if err != nil {
		t.Fatal(err)
	}
	noneRunning(t, mark)
	noProxiesLeft(t, e)
	t.Logf("finished: %q", watch.finished)

	var got []string
	for _, r := range out.Results {
		got = append(got, r.Strategy+" "+r.Scenario)
		if r.Verdict != scenarios.Pass {
			t.Errorf("%s / %s: %s %v %q %s", r.Strategy, r.Scenario, r.Verdict, r.Anomalies, r.Assumptions, r.Error)
		}
	}
	if want := []string{"late.ietf payload-mismatch", "prompt.ietf payload-mismatch"}; !slices.Equal(got, want) {
		t.Errorf("results %q; want %q", got, want)
	}
	if len(out.Skipped) != 2 || out.Skipped[0].Strategy != "late.ietf" || out.Skipped[1].Strategy != "prompt.ietf" ||
		out.Skipped[0].Scenario != "key-expiry" || out.Skipped[0].Reason == "" {
		t.Errorf("skipped %+v; want key-expiry of each row, with why", out.Skipped)
	}
	if len(watch.started) != 2 || len(watch.finished) != 2 {
		t.Errorf("watched %q started, %q finished", watch.started, watch.finished)
	}

	moving, quiet := watch.records["late.ietf"].Obs, watch.records["prompt.ietf"].Obs
	acked := map[string]bool{}
	for _, a := range moving.History.Attempts {
		if a.Status == 201 {
			acked[a.Key] = true
		}
	}
	charged := map[string]bool{}
	for _, c := range moving.Ledger.Charges {
		charged[c.Key] = true
	}
	if len(acked) == 0 || len(charged) != len(acked) || len(moving.Ledger.Charges) != len(acked) {
		t.Errorf("late rows: %d keys acked, the ledger judged holds %d charges under %d keys; want one for each", len(acked),
			len(moving.Ledger.Charges), len(charged))
	}
	if moving.Unsettled || moving.Settled <= time.Second {
		t.Errorf("late rows: settled %s after the last request (unsettled %v); want past the 1 s claim timeout, once they landed",
			moving.Settled, moving.Unsettled)
	}
	if quiet.Unsettled || quiet.Settled >= settle || len(quiet.Ledger.Charges) == 0 {
		t.Errorf("a quiet ledger of %d charges settled %s after the last request (unsettled %v); want before the %s bound",
			len(quiet.Ledger.Charges), quiet.Settled, quiet.Unsettled, settle)
	}
}

// TestRunFiber is the one run of a real conformance target: fiber-memory
// (conformance/fiber, a Go module of its own) built with go build, started
// and run on missing-key under ietf, one seed. Fiber's middleware lets a
// request without a key through to the charge: the cell fails on the
// status contract alone, as conformance/verdicts.golden pins it.
func TestRunFiber(t *testing.T) {
	t.Parallel()
	targets, err := conformance.Lookup([]string{"fiber-memory"})
	if err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b := &Builds{Source: src, Work: t.TempDir(), Log: tlog{t}}
	e := newEnv(t, b)
	killLeftovers(t, b.Work)
	p := Plan{Rows: []Row{{Target: targets[0], Profile: api.IETF}}, Scenarios: []string{"missing-key"}, Seeds: []uint64{1}, Parallel: 1}
	out, err := Run(context.Background(), e, p)
	if err != nil {
		t.Fatal(err)
	}
	noneRunning(t, b.Work)
	noProxiesLeft(t, e)
	if len(out.Results) != 1 || len(out.Skipped) != 0 {
		t.Fatalf("results %+v, skipped %+v; want one cell", out.Results, out.Skipped)
	}
	r := out.Results[0]
	var others []check.Anomaly
	for a, n := range r.Anomalies {
		if n > 0 && a != check.StatusContract {
			others = append(others, a)
		}
	}
	if r.Strategy != "fiber-memory.ietf" || r.Scenario != "missing-key" || r.Verdict != scenarios.Fail || r.Error != "" ||
		r.Anomalies[check.StatusContract] == 0 || len(others) > 0 {
		t.Errorf("%s / %s seed %d: %s %v %q %s; want a fail on status_contract alone", r.Strategy, r.Scenario, r.Seed, r.Verdict,
			r.Anomalies, r.Assumptions, r.Error)
	}
}
