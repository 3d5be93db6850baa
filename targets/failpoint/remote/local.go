package remote

import (
	"context"
	"net/url"
	"sync"
)

// local holds the Servers listening in this process, by base URL: a
// Client with InProcess set carries out the calls of a request whose
// control URL names one of them on that Server directly, as a built-in
// strategy evaluates its points, with nothing on the wire.
var local sync.Map // string -> *Server

// localServer is the Server of this process that serves the control URL
// u, and the replica u names.
func localServer(u string) (*Server, int, bool) {
	p, err := url.Parse(u)
	if err != nil {
		return nil, 0, false
	}
	v, ok := local.Load("http://" + p.Host)
	if !ok {
		return nil, 0, false
	}
	replica, ok := replicaOf(p.Path)
	return v.(*Server), replica, ok
}

// inProcess carries out a call made in process, as ServeHTTP does one
// from the wire: nothing once the Server is closing, and a hold ends when
// it closes, as a held call's connection does.
func (s *Server) inProcess(ctx context.Context, c Call, replica int) {
	if !s.enter() {
		return
	}
	defer s.calls.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stopped, cancel)()
	s.do(ctx, c, replica)
}
