// Package scenariotest runs idemchaos scenarios from a Go test against a
// team's own payment service, given as an http.Handler or a URL, and reports
// every invariant broken as a test error with its evidence.
//
//	func TestIdempotency(t *testing.T) {
//		scenariotest.Run(t, scenariotest.Target{Handler: myHandler, Ledger: myLedger},
//			"concurrent-duplicates", "dropped-response", "payload-mismatch")
//	}
//
// Faults between the test and the service go through an embedded Toxiproxy
// on loopback; scenarios that need the service's internals (failpoints) are
// skipped with their reason.
//
// It is a stable API: the way a team's own tests drive idemchaos.
package scenariotest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/runner"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
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
	// Shape is the request the service expects (zero: the built-in API).
	Shape client.Shape
	// Profile is the contract promised (zero: ietf).
	Profile api.Profile
	// Accounts are the service's account ids to charge (default
	// acct-1..acct-4), in Currency (default EUR).
	Accounts []string
	Currency string
	// ClaimTimeout is the longest the service keeps a key in flight
	// (default 5s).
	ClaimTimeout time.Duration
	// Seed picks the plan (default 1).
	Seed uint64
	// AllowRemote lets URL be off loopback (load and faults then leave the
	// machine); without it such a URL is refused, as on the command line.
	AllowRemote bool
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
	url, stop, err := t.serve()
	if err != nil {
		return scenarios.Result{}, err
	}
	defer stop()
	toxi, err := fault.Embedded()
	if err != nil {
		return scenarios.Result{}, err
	}
	defer toxi.Close()
	e := t.external(url)
	svc, err := runner.NewService(e, toxi, nil, t.Ledger, runner.LedgerInfo(t.LedgerInfo))
	if err != nil {
		return scenarios.Result{}, err
	}
	defer svc.Close()
	cell := scenarios.Cell{Scenario: scenario, Seed: max(t.Seed, 1), Profile: t.Profile, Target: &e}
	res, _, err := runner.Run(ctx, svc, cell, "")
	return res, err
}

func (t Target) external(url string) scenarios.External {
	claim := t.ClaimTimeout
	if claim <= 0 {
		claim = scenarios.DefaultClaimTimeout
	}
	return scenarios.External{Name: "go-test", URLs: []string{url}, Shape: t.Shape, LedgerQuery: "(go test ledger)",
		Accounts: t.Accounts, Currency: t.Currency, ClaimTimeout: claim, AllowRemote: t.AllowRemote}
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
	srv := &http.Server{Handler: t.Handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}
