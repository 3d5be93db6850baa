package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// pathPrefix starts every control URL; the replica index follows.
const pathPrefix = "/idemchaos/failpoints/v1/r"

// maxReplica bounds the replica index a control URL names.
const maxReplica = 1024

// Server is the harness side of the protocol: it serves the control
// endpoint on loopback and evaluates every call on Set, as a built-in
// target's strategy would evaluate the point in process. A request's "end"
// call ends it on Set (its faults heal); one that never sends it is ended
// EndAfter after its first call, and every open request is ended on Close.
// The calls of a handler in the same process, through a Client with
// InProcess, are carried out the same way, off the wire.
type Server struct {
	Set *failpoint.Set
	// MaxHold bounds how long one call is held (default and at most MaxHold).
	MaxHold time.Duration
	// EndAfter ends a request that never called "end" (default DefaultEndAfter).
	EndAfter time.Duration

	base    string
	srv     *http.Server
	done    chan struct{}
	stop    context.CancelFunc // ends the holds of in-process calls (Close)
	stopped context.Context
	calls   sync.WaitGroup
	mu      sync.Mutex
	open    map[string]*time.Timer // attempt -> its backstop end
	closing bool
}

// Listen starts a Server over set on a free loopback port.
func Listen(set *failpoint.Set) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("failpoint control endpoint: %w", err)
	}
	s := &Server{Set: set, base: "http://" + ln.Addr().String(), open: map[string]*time.Timer{}, done: make(chan struct{})}
	s.stopped, s.stop = context.WithCancel(context.Background())
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	local.Store(s.base, s)
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the control URL for requests sent to the given replica: the value
// of Header on them.
func (s *Server) URL(replica int) string { return s.base + pathPrefix + strconv.Itoa(replica) }

// Close stops serving: calls still held are answered at once (their gates
// and delays end), then every open request is ended, so its faults heal.
func (s *Server) Close() error {
	local.CompareAndDelete(s.base, s)
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.stop()
	err := s.srv.Close()
	<-s.done
	s.calls.Wait()
	s.mu.Lock()
	open := make([]string, 0, len(s.open))
	for a, t := range s.open {
		t.Stop()
		open = append(open, a)
	}
	clear(s.open)
	s.mu.Unlock()
	for _, a := range open {
		s.Set.End(a)
	}
	return err
}

// ServeHTTP answers one call: 204 once the point has been evaluated (after
// any hold), 400 for a body that is not a Call, 404 for a path that is not
// a control URL, 405 for a method other than POST.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		http.Error(w, "closing", http.StatusServiceUnavailable)
		return
	}
	defer s.calls.Done()
	replica, ok := replicaOf(r.URL.Path)
	switch {
	case !ok:
		http.Error(w, "not a failpoint control URL", http.StatusNotFound)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST a call", http.StatusMethodNotAllowed)
		return
	}
	call, err := readCall(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.do(r.Context(), call, replica)
	w.WriteHeader(http.StatusNoContent)
}

// do carries out one call: an end, or a point evaluated.
func (s *Server) do(ctx context.Context, c Call, replica int) {
	if c.Point == PointEnd {
		s.end(c.Attempt)
		return
	}
	s.eval(ctx, c, replica)
}

// enter counts a call in, unless the Server is closing.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.calls.Add(1)
	return true
}

func replicaOf(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, pathPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0 && n < maxReplica && strconv.Itoa(n) == rest
}

func readCall(body io.Reader) (Call, error) {
	var c Call
	b, err := io.ReadAll(io.LimitReader(body, maxCallBody+1))
	switch {
	case err != nil:
		return c, fmt.Errorf("unreadable call: %w", err)
	case len(b) > maxCallBody:
		return c, fmt.Errorf("call over %d bytes", maxCallBody)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf(`call: want JSON {"point","key","attempt"}: %w`, err)
	}
	return c, c.check()
}

// eval runs the point on the Set, bounded by MaxHold; the request is open
// until its end.
func (s *Server) eval(ctx context.Context, c Call, replica int) {
	s.touch(c.Attempt)
	ctx, cancel := context.WithTimeout(ctx, s.maxHold())
	defer cancel()
	s.Set.Eval(ctx, api.Point(c.Point), c.Key, c.Attempt, replica)
}

func (s *Server) maxHold() time.Duration {
	if s.MaxHold <= 0 || s.MaxHold > MaxHold {
		return MaxHold
	}
	return s.MaxHold
}

// touch opens the request of attempt, if it is not open yet, with its
// backstop end.
func (s *Server) touch(attempt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[attempt] != nil {
		return
	}
	after := s.EndAfter
	if after <= 0 {
		after = DefaultEndAfter
	}
	s.open[attempt] = time.AfterFunc(after, func() { s.end(attempt) })
}

// end ends the request of attempt on the Set.
func (s *Server) end(attempt string) {
	s.mu.Lock()
	if t := s.open[attempt]; t != nil {
		t.Stop()
		delete(s.open, attempt)
	}
	s.mu.Unlock()
	s.Set.End(attempt)
}
