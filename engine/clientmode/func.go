package clientmode

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
)

// Call is one operation a client under test in Go (Config.Func) is asked
// to make: where the API is, the request timeout to use, the API's shape.
type Call struct {
	URL     string
	Timeout time.Duration
	Shape   string
	Op      history.Operation
}

// runFunc calls the Go client once per operation, in turn, until the
// run's bound.
func runFunc(ctx context.Context, cfg Config, call Call, ops []history.Operation) (childOut, error) {
	bound, cancel := context.WithTimeout(ctx, cfg.Bound)
	defer cancel()
	var out childOut
	t0 := time.Now()
	for _, op := range ops {
		if bound.Err() != nil {
			break
		}
		call.Op = op
		err := cfg.Func(bound, call)
		told := history.Told{Op: op.ID, Outcome: history.Succeeded, At: time.Since(t0)}
		if err != nil {
			told.Outcome, told.Detail = history.Failed, strings.Join(strings.Fields(err.Error()), " ")
		}
		fmt.Fprintf(outputOf(cfg), "%s %s %s\n", told.Op, told.Outcome, told.Detail)
		out.told = append(out.told, told)
	}
	switch {
	case ctx.Err() != nil:
		return out, ctx.Err()
	case bound.Err() != nil:
		out.exit = fmt.Sprintf("stopped at the run's bound (%s)", cfg.Bound)
	}
	return out, nil
}
