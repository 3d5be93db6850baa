package provision

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// errExited reports that a server exited before it was ready.
var errExited = errors.New("exited before it was ready")

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
