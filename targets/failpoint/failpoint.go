// Package failpoint arms the named points (api.Point) inside a target
// request, where a scenario can pause the request (a gate) or fire a fault
// (cut a store link right after the Postgres commit, say). Strategies
// evaluate the points they pass; an unarmed Set costs one atomic load per
// point.
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package failpoint

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Hit is a request reaching a point.
type Hit struct {
	Point     api.Point
	Key       string
	AttemptID string
	Replica   int
}

// Action runs when a matching request reaches an armed point. It may block
// (a gate) or fire a fault; the returned heal, if any, runs when that
// request ends.
type Action func(ctx context.Context, h Hit) (heal func())

// Match selects the requests an action applies to.
type Match func(h Hit) bool

// Attempt matches one attempt id.
func Attempt(id string) Match { return func(h Hit) bool { return h.AttemptID == id } }

// Any matches every request.
func Any(Hit) bool { return true }

type hook struct {
	name   string
	point  api.Point
	match  Match
	action Action
}

// Set holds the armed actions of one target. The zero value is unarmed and
// ready to use; a nil *Set is valid and never fires.
type Set struct {
	armed  atomic.Bool
	mu     sync.Mutex
	hooks  []hook
	heals  map[string][]func()
	fired  map[string]int
	points map[api.Point]int
}

// Arm adds an action at point p for the requests match selects; name labels
// it in Fired.
func (s *Set) Arm(name string, p api.Point, match Match, a Action) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, hook{name: name, point: p, match: match, action: a})
	s.armed.Store(true)
}

// Eval is called by a strategy when a request passes point p.
func (s *Set) Eval(ctx context.Context, p api.Point, key, attemptID string, replica int) {
	if s == nil || !s.armed.Load() {
		return
	}
	h := Hit{Point: p, Key: key, AttemptID: attemptID, Replica: replica}
	for _, hk := range s.matching(h) {
		heal := hk.action(ctx, h)
		s.record(hk.name, h, heal)
	}
}

func (s *Set) matching(h Hit) []hook {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []hook
	for _, hk := range s.hooks {
		if hk.point == h.Point && hk.match(h) {
			out = append(out, hk)
		}
	}
	return out
}

func (s *Set) record(name string, h Hit, heal func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fired == nil {
		s.fired, s.heals, s.points = map[string]int{}, map[string][]func(){}, map[api.Point]int{}
	}
	s.fired[name]++
	s.points[h.Point]++
	if heal != nil {
		s.heals[h.AttemptID] = append(s.heals[h.AttemptID], heal)
	}
}

// End runs the heals registered by the request with this attempt id; the
// server calls it when the request's work is over.
func (s *Set) End(attemptID string) {
	if s == nil || !s.armed.Load() {
		return
	}
	s.mu.Lock()
	heals := s.heals[attemptID]
	delete(s.heals, attemptID)
	s.mu.Unlock()
	for _, h := range heals {
		h()
	}
}

// Fired returns how many times each named action fired.
func (s *Set) Fired() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.fired))
	for k, v := range s.fired {
		out[k] = v
	}
	return out
}
