package api

import "fmt"

// Point is a named place inside a target's handling of one charge request,
// where the harness may pause the request (a gate) or fire a fault (an
// Injection). Targets evaluate the points they pass, in this order.
type Point string

// The points, in the order a request passes them.
const (
	AfterCheck          Point = "after-check"           // the key was looked up (or claimed) and found free
	AfterClaim          Point = "after-claim"           // the key is claimed by this request
	BeforeCommit        Point = "before-commit"         // the charge is written, its transaction not yet committed
	AfterCommit         Point = "after-commit"          // the charge is committed in Postgres
	BeforeStoreResponse Point = "before-store-response" // about to store the final response for replays
)

// Points lists every point in request order.
func Points() []Point {
	return []Point{AfterCheck, AfterClaim, BeforeCommit, AfterCommit, BeforeStoreResponse}
}

// ParsePoint checks a point name.
func ParsePoint(s string) (Point, error) {
	for _, p := range Points() {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown failpoint %q (known: %v)", s, Points())
}
