package scenariotest

import (
	"context"
	"net/http"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
)

// Point is a named place in a handler's work on one charge request, where
// the harness may hold the request (At).
type Point = api.Point

// The points, in the order a request passes them (docs/failpoints.md).
const (
	AfterCheck          = api.AfterCheck          // the key was looked up (or claimed) and found free
	AfterClaim          = api.AfterClaim          // the key is claimed by this request
	BeforeCommit        = api.BeforeCommit        // the charge is written, not yet committed
	AfterCommit         = api.AfterCommit         // the charge is committed
	BeforeStoreResponse = api.BeforeStoreResponse // about to store the final response for replays
)

// At says that the request of ctx (the handler's r.Context(), or one made
// from it) passes point p, with its idempotency key: the harness may hold
// the request there (forced-race's gate, Explore's scheduler) or fire a
// fault. With Target.Failpoints set, a Handler's calls are evaluated in the
// test's process, as a built-in strategy's points are; outside a run (a
// request the harness did not send, a handler in production) At returns
// at once and costs nothing. A point never called is never held: a
// scenario that needs it says so, it does not pass.
func At(ctx context.Context, p Point, key string) { remote.At(ctx, p, key) }

// withPoints wraps a handler so that its At calls reach the harness in
// process.
func withPoints(h http.Handler) http.Handler {
	return (&remote.Client{InProcess: true}).Middleware(h)
}
