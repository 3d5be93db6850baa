package provision

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// errExited reports that a server exited before it was ready.
var errExited = errors.New("exited before it was ready")

// startError is a local server that did not become ready on its port. Its
// message quotes the tail of the server's log, which is what a user needs
// when a start fails for good; brief is the short form a retry prints.
type startError struct {
	server string // "redis", "postgres"
	port   int
	err    error  // errExited, or why the last probe failed
	log    string // the log's last lines, on one line
}

func (e *startError) Error() string {
	return fmt.Sprintf("%s on port %d: %v (log: %s)", e.server, e.port, e.err, e.log)
}

func (e *startError) Unwrap() error { return e.err }

// brief names the server, its port and, when its log says so, that
// another process had taken the port.
func (e *startError) brief() string {
	s := fmt.Sprintf("%s on port %d: %v", e.server, e.port, e.err)
	if strings.Contains(e.log, "already in use") {
		s += " (port in use)"
	}
	return s
}

// retryReason is err on the one line a start prints before it tries again:
// a startError in it is told briefly, without its log (the error of the
// last attempt still quotes it).
func retryReason(err error) string {
	msg := oneLine(err.Error())
	var se *startError
	if !errors.As(err, &se) {
		return msg
	}
	if i := strings.Index(msg, se.Error()); i >= 0 {
		return msg[:i] + se.brief()
	}
	return se.brief()
}

// poll calls probe every `every` until it succeeds, ctx is done, the
// exited channel closes (nil: never) or limit has passed.
func poll(ctx context.Context, limit, every time.Duration, exited <-chan struct{}, probe func(context.Context) error) error {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		err := probe(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return errExited
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", limit, err)
		}
	}
}
