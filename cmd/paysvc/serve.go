package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// shutdownTimeout bounds the wait for requests in flight on a signal.
const shutdownTimeout = 20 * time.Second

// serve opens the ledger, listens on loopback, prints the base URL on
// stdout and serves until ctx is done; then requests in flight finish and
// the rows answered late are committed before the ledger closes.
func serve(ctx context.Context, c config, stdout, stderr io.Writer) error {
	l, err := openLedger(ctx, c.dsn, c.commitDSN)
	if err != nil {
		return err
	}
	defer l.close()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)))
	if err != nil {
		return fmt.Errorf("--port %d: %w", c.port, err)
	}
	s := newService(c, l, stderr)
	srv := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "paysvc: mistake %s, charge %s, claim ttl %s; ledger query: %s\n", c.mistake, c.chargeTime, c.claimTTL, ledgerQuery)
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err = srv.Shutdown(sctx); err != nil {
		err = errors.Join(fmt.Errorf("shutdown: %w", err), srv.Close())
	}
	<-served
	s.behind.Wait() // bounded: each is a --late pause and one insert
	return err
}
