// Package remote is the failpoint protocol: how a service in any language,
// running as its own process, lets the harness pause and fault its requests
// at the named points (api.Points: after-check, after-claim, before-commit,
// after-commit, before-store-response), as the harness does inside a
// built-in target. The wire format is documented in docs/failpoints.md.
//
// The harness adds the header Header to each request it sends, carrying the
// URL of a control endpoint it serves on loopback. A service that speaks the
// protocol POSTs a small JSON Call to that URL at each named point it passes
// and goes on when the answer comes (the harness holds the answer to gate
// or delay the request, and applies link faults itself on store proxies it
// controls); when the request's work is over it POSTs an "end" call, so
// link faults heal. A request without the header pays nothing.
//
// Service side: Middleware reads the header into the request's context; At
// reports a point, End the end of the work (Middleware also sends it when
// the handler returns); NewSet is a failpoint.Set whose Eval calls, as the
// built-in strategies make them, reach the harness through At. A Client
// with InProcess carries the calls of a handler in the harness's own
// process (a go test's) to the harness's Server directly, off the wire.
//
// Harness side: Server serves the control endpoint over a failpoint.Set,
// where the harness arms gates, tracers and injections exactly as for a
// built-in target, and so records the same things (what fired, what a gate
// held, the trace of every point).
//
// The wire format is the stable contract; the Go API of this package is
// young and may change between releases.
package remote

import (
	"fmt"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Header carries the control URL on a request the harness sends. Its value
// is an absolute http URL on loopback, opaque to the service: POST calls to
// exactly that URL.
const Header = "X-Idemchaos-Failpoints"

// PointEnd is the call a service makes when a request's work is over (after
// the last point it passed, before or as it answers): faults the request
// fired heal then.
const PointEnd = "end"

// Call is the JSON body a service POSTs to the control URL.
type Call struct {
	// Point is one of api.Points, or PointEnd.
	Point string `json:"point"`
	// Key is the request's idempotency key as the service read it ("" if
	// it has none): gates pair requests by it.
	Key string `json:"key"`
	// Attempt is the value of the request's X-Idemchaos-Attempt header:
	// injections are planned per attempt.
	Attempt string `json:"attempt"`
}

// check reports what is wrong with a call, or nil.
func (c Call) check() error {
	if c.Point == PointEnd {
		return nil
	}
	if _, err := api.ParsePoint(c.Point); err != nil {
		return fmt.Errorf("%w, or %q", err, PointEnd)
	}
	return nil
}

// Bounds of every wait, on both sides.
const (
	// MaxHold is the longest the harness holds an answer: no gate or delay
	// lasts longer (api.MaxInjectionArg).
	MaxHold = api.MaxInjectionArg
	// DefaultTimeout is how long a service waits for an answer before it
	// goes on without one: longer than MaxHold, so a held answer is never
	// cut short.
	DefaultTimeout = MaxHold + 5*time.Second
	// DefaultEndAfter is how long after a request's first call the harness
	// ends it by itself if its "end" never comes (a service that crashed, or
	// forgot): no fault outlives it.
	DefaultEndAfter = 15 * time.Second
	// maxCallBody bounds a call's body.
	maxCallBody = 4 << 10
)
