package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// shutdownTimeout bounds the wait for in-flight requests on SIGINT/SIGTERM;
// it outlasts the server's own per-request work bound.
const shutdownTimeout = 20 * time.Second

// serve provisions the stores, prepares the ledger, serves the API until ctx
// is done, then shuts the server down and closes the stores, in that order.
func serve(ctx context.Context, c config, stderr io.Writer) (err error) {
	provLog := io.Discard
	if c.verbose {
		provLog = prefixWriter{w: stderr}
	}
	s, err := openStores(ctx, c, provLog)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.close(); cerr != nil && err == nil {
			err = fmt.Errorf("stopping the stores: %w", cerr)
		}
	}()
	if err := s.prepare(ctx, c); err != nil {
		return envError(err)
	}
	h, err := newHandler(c, s, stderr)
	if err != nil {
		return envError(err)
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return envError(fmt.Errorf("--listen %s: %w", c.listen, err))
	}
	announce(stderr, c, s, ln.Addr().String())
	return serveUntilDone(ctx, ln, h, stderr)
}

// serveUntilDone serves on ln until ctx is done, then shuts down gracefully:
// no new connections, in-flight requests finish (up to shutdownTimeout).
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler, stderr io.Writer) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "paymentd: shutting down: in-flight requests finish, then the stores close")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		err = errors.Join(fmt.Errorf("shutdown: %w", err), srv.Close())
	}
	<-served
	return err
}

// prefixWriter prefixes each write, one line per write, with "paymentd: ".
type prefixWriter struct{ w io.Writer }

func (p prefixWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, "paymentd: "+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
