package engine

import (
	"context"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
)

// Watcher sees cells start and finish (a progress display, a tally). Its
// Finish calls never overlap.
type Watcher interface {
	Start(c scenarios.Cell)
	Finish(res scenarios.Result, rec scenarios.Record)
}

// Batch is how RunAll runs its cells.
type Batch struct {
	Out   string           // the run directory ("": none)
	Stop  <-chan time.Time // once it fires, no more cells start (nil: never)
	Watch Watcher          // nil: nobody watches
}

// RunAll runs cells through Run on the executors, one cell per executor at
// a time, and returns the results in cell order. The first error stops the
// rest. Once b.Stop fires, or ctx ends, no more cells start; those started
// finish and the cells never started keep zero results.
func RunAll(ctx context.Context, executors []Executor, cells []scenarios.Cell, b Batch) ([]scenarios.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	results := make([]scenarios.Result, len(cells))
	next := make(chan int)
	errs := make(chan error, len(executors))
	var wg sync.WaitGroup
	for _, e := range executors {
		wg.Go(func() {
			for i := range next {
				res, rec, err := Run(ctx, e, cells[i], b.Out)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				mu.Lock()
				results[i] = res
				if b.Watch != nil {
					b.Watch.Finish(res, rec)
				}
				mu.Unlock()
			}
		})
	}
	feed(ctx, cells, next, b)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return results, ctx.Err()
}

// feed hands out the cells' indexes until they run out, ctx ends or
// b.Stop fires.
func feed(ctx context.Context, cells []scenarios.Cell, next chan<- int, b Batch) {
	defer close(next)
	for i, cell := range cells {
		if b.Watch != nil {
			b.Watch.Start(cell)
		}
		select {
		case next <- i:
		case <-ctx.Done():
			return
		case <-b.Stop:
			return
		}
	}
}
