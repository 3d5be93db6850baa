package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Replica is one running instance of the API on a loopback port.
type Replica struct {
	Addr string // host:port
	srv  *http.Server
	done chan struct{}
}

// Listen starts serving h on a free loopback port.
func Listen(h http.Handler) (*Replica, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	r := &Replica{Addr: ln.Addr().String(), done: make(chan struct{}),
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}}
	go func() {
		_ = r.srv.Serve(ln)
		close(r.done)
	}()
	return r, nil
}

// Close waits for in-flight requests (up to the context's deadline), then
// closes every connection.
func (r *Replica) Close(ctx context.Context) error {
	err := r.srv.Shutdown(ctx)
	if err != nil {
		err = r.srv.Close()
	}
	<-r.done
	return err
}
