// Package scenariotest runs idemchaos scenarios from a Go test against a
// team's own payment service, given as an http.Handler or a URL, and reports
// every invariant broken as a test error at the line that ran it, with its
// evidence. A test needs this one import:
//
//	func TestIdempotency(t *testing.T) {
//		scenariotest.RunAll(t, scenariotest.Target{Handler: myHandler, Ledger: scenariotest.LedgerFunc(myLedger)})
//	}
//
// Faults between the test and the service go through an embedded Toxiproxy
// on loopback; a scenario that needs the service's internals (failpoints)
// or its store links is logged as not run, with what it needs; a test in
// which nothing could run fails. The run is the command line's pipeline
// (idemchaos run --target-url), with its rules: keys fresh per run, the
// ledger read until it settles, a URL off loopback refused unless allowed.
//
// A handler can give the harness its internals: it calls At with its
// request's context at each point it passes (after its key check, after
// its claim, before and after its commit, before it stores the answer),
// and the test sets Target.Failpoints. The calls are evaluated in the
// test's process, as a built-in strategy's points are: forced-race's gate
// holds the handler's first request after its key check until the
// duplicate is answered, the in-target delays fire at their points, and
// Explore runs every order of two requests of a key through the points
// (docs/explore.md), as idemchaos explore does. Outside such a run At
// costs nothing.
//
// It is a stable API: the way a team's own tests drive idemchaos.
package scenariotest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/results"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/openapi"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
)

// The types a test needs, so that it imports this package alone.
type (
	// Charge is one ledger row that moved money: a Ledger returns them.
	Charge = history.Charge
	// Shape is the request the service expects (path, body template,
	// headers, success statuses, the charge id's field).
	Shape = client.Shape
	// Profile is the idempotency contract the service promises.
	Profile = api.Profile
	// Result is one checked scenario.
	Result = scenarios.Result
	// SkipError says a scenario cannot run against the target, and why.
	SkipError = scenarios.SkipError
	// TopUp is the request that funds an account (business-refusal).
	TopUp = scenarios.TopUp
	// ReplayCompare is how a replay must repeat the key's first answer:
	// byte for byte (zero), or as JSON with fields left out.
	ReplayCompare = check.ReplayCompare
)

// The built-in contract profiles.
var (
	IETF   = api.IETF
	Stripe = api.Stripe
)

// Target is the service under test.
type Target struct {
	// Handler is served on a loopback port for the run; or give URL, a
	// service already running on loopback (http://127.0.0.1:port).
	Handler http.Handler
	URL     string
	// Ledger reads the charges made under the run's keys: the ground truth.
	Ledger Ledger
	// LedgerInfo says whether the charges name the charge id a success
	// answer carries, and the attempt (X-Idemchaos-Attempt header) that
	// made them.
	LedgerInfo LedgerInfo
	// Shape is the request the service expects (zero: the built-in API,
	// or what OpenAPI describes).
	Shape client.Shape
	// OpenAPI is the service's OpenAPI 3.0/3.1 description (a file): the
	// request shape is read from its charge operation, the one that
	// declares an idempotency key header, or the one Operation names (its
	// operationId, or "POST /path"). Shape's non-zero fields still win.
	OpenAPI, Operation string
	// Profile is the contract promised (zero: ietf).
	Profile api.Profile
	// Accounts are the service's account ids to charge (default
	// acct-1..acct-4), in Currency (default EUR).
	Accounts []string
	Currency string
	// ClaimTimeout is the longest the service keeps a key in flight
	// (default 5s); the ledger is also read until it settles for that long.
	ClaimTimeout time.Duration
	// KeyTTL is how long the service keeps a completed key, when that is
	// short enough for key-expiry to run (at most 250ms; zero: not said).
	KeyTTL time.Duration
	// TopUp is a request the service answers 2xx by crediting an account
	// (Path and Body are Go templates over {{.Account}}, {{.Amount}},
	// {{.Currency}}): business-refusal funds a declined account with it.
	TopUp *TopUp
	// Seed picks the plan (default 1).
	Seed uint64
	// AllowRemote lets URL be off loopback (load and faults then leave the
	// machine); without it such a URL is refused, as on the command line.
	AllowRemote bool
	// Toxiproxy is the API of a Toxiproxy the service's store traffic goes
	// through, and PostgresProxy, RedisProxy, DynamoDBProxy the proxies
	// in it: they let the store-fault scenarios cut the service's links
	// mid-request.
	Toxiproxy, PostgresProxy, RedisProxy, DynamoDBProxy string
	// Replay is how every replay must repeat the key's first answer: as
	// JSON documents, field for field, the same JSON in other bytes a
	// deviation (logged, never a failure), as the command line does; a
	// service that renders per-response metadata (a request id, a
	// timestamp) leaves those fields out: ReplayCompare{Ignore:
	// []string{"created"}}. ReplayBytes asks for byte for byte instead.
	Replay      ReplayCompare
	ReplayBytes bool
	// Failpoints says the target calls the failpoints: a Handler calls At
	// with its request's context at each point it passes (its calls are
	// evaluated in the test's process), a URL's service speaks the
	// failpoint protocol (docs/failpoints.md). forced-race and Explore
	// need it; without it they say they cannot run.
	Failpoints bool
	// Out is a directory Run and RunAll save the run in, as idemchaos run
	// --out does: each scenario's plan, history and ledger, results.json
	// and report.html, the HTML report (idemchaos check and report read
	// it). An earlier run saved there is replaced; any other directory must
	// be empty. Zero: the run is not saved.
	Out string
}

// Ledger reads a service's ground truth: the charges made under the given
// idempotency keys, one history.Charge per row that moved money (Key,
// Account, Amount; ID and AttemptID when the rows carry them).
type Ledger interface {
	Charges(ctx context.Context, keys []string) ([]history.Charge, error)
}

// LedgerInfo says what a ledger's rows name besides key, account and amount.
type LedgerInfo struct {
	ChargeIDs  bool // the charge id a success answer names
	AttemptIDs bool // the attempt (X-Idemchaos-Attempt header) that made the charge
}

// LedgerFunc adapts a function to a Ledger.
type LedgerFunc func(ctx context.Context, keys []string) ([]history.Charge, error)

// Charges calls f.
func (f LedgerFunc) Charges(ctx context.Context, keys []string) ([]history.Charge, error) {
	return f(ctx, keys)
}

// Check runs one scenario against the target through the pipeline the
// command line uses and returns its checked result. A *scenarios.SkipError
// says the scenario cannot run against it; a URL off loopback is refused
// unless AllowRemote.
func Check(ctx context.Context, t Target, scenario string) (scenarios.Result, error) {
	o, err := t.run(ctx, []string{scenario}, "")
	switch {
	case err != nil:
		return scenarios.Result{}, err
	case len(o.skipped) > 0:
		return scenarios.Result{}, &scenarios.SkipError{Scenario: o.skipped[0].Scenario, Reason: o.skipped[0].Reason}
	}
	return o.results[0], nil
}

// outcome is what a run of scenarios against the target gave: the checked
// results in the order asked, and the scenarios that could not run, with why.
type outcome struct {
	results []scenarios.Result
	skipped []results.Skip
	lat     *results.Latencies
}

// run runs the named scenarios against the target one after another, on
// one service through engine.RunService (the command line's pipeline: the
// service's charge timed once, the scenarios that cannot run at that speed
// moved out), and saves the run in out when given. Reasons are in the
// test's words, each result's repro too.
func (t Target) run(ctx context.Context, names []string, out string) (outcome, error) {
	svc, e, closeAll, err := t.open()
	if err != nil {
		return outcome{}, err
	}
	defer closeAll()
	seed := max(t.Seed, 1)
	cells := make([]scenarios.Cell, len(names))
	for i, name := range names {
		cells[i] = scenarios.Cell{Scenario: name, Seed: seed, Profile: t.Profile, Target: &e, Strategy: e.Name}
	}
	started := time.Now()
	o, err := t.runCells(ctx, svc, cells, out)
	for i := range o.skipped {
		o.skipped[i].Reason = words.Replace(o.skipped[i].Reason)
	}
	if err != nil || len(o.results) == 0 {
		return o, err
	}
	for i, r := range o.results {
		r.Repro = fmt.Sprintf("set Target.Seed = %d and run scenario %s again", seed, r.Scenario)
		o.results[i] = inOwnWords(r)
	}
	return o, save(out, o, started)
}

// open serves the target, when it is a handler, and opens it as the
// engine's service, with the embedded Toxiproxy in front of it and the
// store proxies it names; closeAll closes all of it.
func (t Target) open() (_ *engine.Service, _ scenarios.External, closeAll func(), err error) {
	var closers []func()
	all := func() {
		for _, c := range slices.Backward(closers) {
			c()
		}
	}
	defer func() {
		if err != nil {
			all()
		}
	}()
	url, stop, err := t.serve()
	if err != nil {
		return nil, scenarios.External{}, nil, err
	}
	closers = append(closers, stop)
	toxi, err := fault.Embedded()
	if err != nil {
		return nil, scenarios.External{}, nil, err
	}
	closers = append(closers, func() { toxi.Close() })
	var stores *fault.Toxiproxy
	if t.Toxiproxy != "" {
		if stores, err = fault.External(t.Toxiproxy); err != nil {
			return nil, scenarios.External{}, nil, err
		}
	}
	e, err := t.external(url)
	if err != nil {
		return nil, e, nil, err
	}
	svc, err := engine.NewService(e, toxi, stores, t.Ledger, engine.LedgerInfo(t.LedgerInfo))
	if err != nil {
		return nil, e, nil, err
	}
	closers = append(closers, func() { svc.Close() })
	return svc, e, all, nil
}

// runCells runs the cells that can run against the service.
func (t Target) runCells(ctx context.Context, svc *engine.Service, cells []scenarios.Cell, out string) (outcome, error) {
	cells, skipped := engine.SplitSkipped(cells)
	if len(cells) == 0 {
		return outcome{skipped: skipped}, nil
	}
	if err := prepare(out, len(cells)); err != nil {
		return outcome{skipped: skipped}, err
	}
	lat := results.NewLatencies()
	ran, err := engine.RunService(ctx, svc, cells, engine.ServiceBatch{Out: out, Watch: latencies{lat}})
	skipped = append(skipped, ran.Skipped...)
	switch {
	case len(ran.Results) == 0 && len(ran.Skipped) > 0: // measuring the service moved every cell out
		return outcome{skipped: skipped}, nil
	case err != nil:
		return outcome{skipped: skipped}, errors.New(words.Replace(err.Error()))
	}
	return outcome{results: ran.Results, skipped: skipped, lat: lat}, nil
}

func (t Target) external(url string) (scenarios.External, error) {
	claim := t.ClaimTimeout
	if claim <= 0 {
		claim = scenarios.DefaultClaimTimeout
	}
	shape, err := t.shape()
	replay := t.Replay
	if !t.ReplayBytes {
		replay.JSON, replay.Drift = true, true
	}
	return scenarios.External{Name: "go-test", URLs: []string{url}, Shape: shape, LedgerQuery: "(go test ledger)",
		Accounts: t.Accounts, Currency: t.Currency, ClaimTimeout: claim, KeyTTL: t.KeyTTL, TopUp: t.TopUp, AllowRemote: t.AllowRemote,
		Toxiproxy: t.Toxiproxy, PostgresProxy: t.PostgresProxy, RedisProxy: t.RedisProxy,
		DynamoDBProxy: t.DynamoDBProxy, Replay: replay, Failpoints: t.Failpoints}, err
}

// shape is the request the service expects: Shape, filled in from the
// OpenAPI description when there is one.
func (t Target) shape() (client.Shape, error) {
	if t.OpenAPI == "" {
		return t.Shape, nil
	}
	doc, err := openapi.Load(t.OpenAPI)
	if err != nil {
		return client.Shape{}, fmt.Errorf("scenariotest: %w", err)
	}
	op, err := doc.Pick(t.Operation)
	if err == nil {
		var s client.Shape
		if s, err = op.Map(openapi.Want{Shape: t.Shape}); err == nil {
			return s, nil
		}
	}
	return client.Shape{}, fmt.Errorf("scenariotest: openapi %s: %w", t.OpenAPI, err)
}

// serve returns the target's URL, serving its handler on loopback if it
// has one, and how to stop it.
func (t Target) serve() (string, func(), error) {
	switch {
	case t.Ledger == nil:
		return "", nil, fmt.Errorf("scenariotest: Target.Ledger is required: it is the ground truth")
	case t.Handler == nil && t.URL == "":
		return "", nil, fmt.Errorf("scenariotest: give Target.Handler or Target.URL")
	case t.Handler == nil:
		return t.URL, func() {}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	h := t.Handler
	if t.Failpoints {
		h = withPoints(h)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}
