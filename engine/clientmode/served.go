package clientmode

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// ToldPath is where a client run by hand (Config.Serve) may POST its
// outcome lines, one or more per request body, on the API's address.
const ToldPath = "/idemchaos/v1/told"

// maxToldBody bounds one POST of outcome lines.
const maxToldBody = 64 << 10

// runServed tells cfg.Served what to give the client, then reads its
// outcome lines, from cfg.Told and from POSTs to ToldPath, until every
// operation has one, cfg.Told ends, the run's bound passes or ctx ends.
func runServed(ctx context.Context, cfg Config, s *served, plan workload.ClientPlan, ops []history.Operation) (childOut, error) {
	bound, cancel := context.WithTimeout(ctx, cfg.Bound)
	defer cancel()
	if cfg.Served != nil {
		cfg.Served(s.env(cfg, plan))
	}
	defer close(s.toldDone) // later lines are refused, not waited on
	ended := make(chan struct{})
	if cfg.Told != nil {
		go readLines(cfg.Told, s.told, s.toldDone, ended)
	}
	var out childOut
	t0, seen := time.Now(), map[string]bool{}
	for len(seen) < len(ops) {
		select {
		case line := <-s.told:
			if op := out.add(line, ops, time.Since(t0)); op != "" {
				seen[op] = true
			}
			fmt.Fprintln(outputOf(cfg), line)
		case <-ended:
			out.exit = "its outcome lines ended before every operation had one"
			return out, nil
		case <-bound.Done():
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			out.exit = fmt.Sprintf("stopped at the run's bound (%s)", cfg.Bound)
			return out, nil
		}
	}
	return out, nil
}

// readLines sends r's lines to lines until done, and closes ended at its
// end.
func readLines(r io.Reader, lines chan<- string, done <-chan struct{}, ended chan<- struct{}) {
	defer close(ended)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	for sc.Scan() {
		select {
		case lines <- strings.TrimRight(sc.Text(), "\r"):
		case <-done:
			return
		}
	}
}

// toldHandler takes POSTed outcome lines: 204, or 405 for another method,
// 413 for a body over maxToldBody and 409 once the run stopped reading.
func toldHandler(lines chan<- string, done <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST outcome lines: OP succeeded|failed [detail]", http.StatusMethodNotAllowed)
			return
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, maxToldBody+1))
		if err != nil || len(b) > maxToldBody {
			http.Error(w, fmt.Sprintf("outcome lines: at most %d bytes a POST", maxToldBody), http.StatusRequestEntityTooLarge)
			return
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				select {
				case lines <- line:
				case <-done:
					http.Error(w, "the run has stopped reading outcome lines", http.StatusConflict)
					return
				case <-r.Context().Done():
					return
				}
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
