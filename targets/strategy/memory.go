package strategy

import (
	"context"
	"sync"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

func init() { bind(design.Memory, newMemory) }

// memory keeps claims and responses in a per-process map: correct on one
// replica, blind across replicas.
type memory struct {
	deps Deps
	mu   sync.Mutex
	keys map[string]*memEntry
}

type memEntry struct {
	fingerprint string
	done        bool
	resp        Response
}

func newMemory(d Deps) Strategy { return &memory{deps: d, keys: map[string]*memEntry{}} }

func (s *memory) Handle(ctx context.Context, r Request) Response {
	if r.Key == "" {
		return noKey(ctx, s.deps, r)
	}
	if resp, ok := s.claim(r); !ok {
		return resp
	}
	s.deps.at(ctx, api.AfterCheck, r)
	s.deps.at(ctx, api.AfterClaim, r)
	resp := runCharge(ctx, s.deps, r)
	if cacheable(resp) {
		s.deps.at(ctx, api.BeforeStoreResponse, r)
	}
	s.finish(r, resp)
	return resp
}

// claim registers r's key atomically; ok=false returns the answer for a key
// that already exists.
func (s *memory) claim(r Request) (Response, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, found := s.keys[r.Key]
	switch {
	case !found:
		s.keys[r.Key] = &memEntry{fingerprint: r.Fingerprint}
		return Response{}, true
	case e.fingerprint != r.Fingerprint:
		return mismatch(s.deps.Profile), false
	case !e.done:
		return inFlight(s.deps.Profile), false
	}
	return replay(e.resp), false
}

// finish stores a final response, or releases the claim after a failure.
func (s *memory) finish(r Request, resp Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !cacheable(resp) {
		delete(s.keys, r.Key)
		return
	}
	s.keys[r.Key] = &memEntry{fingerprint: r.Fingerprint, done: true, resp: resp}
}
