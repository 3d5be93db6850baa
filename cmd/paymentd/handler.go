package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
	"github.com/idemchaos/idemchaos/targets/server"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// healthTimeout bounds the store pings of one /healthz.
const healthTimeout = 2 * time.Second

// newHandler builds the strategy on the stores it uses (Postgres and Redis,
// or MariaDB's InnoDB ledger alone) and the API, adds /healthz and, with
// --verbose, a log line per request. With --failpoints the strategy's
// failpoints reach the harness named by each request's control URL
// (remote.Middleware reads it; a request without it is served as usual).
func newHandler(c config, s *stores, stderr io.Writer) (http.Handler, error) {
	info, err := design.Lookup(c.strategy)
	if err != nil {
		return nil, err
	}
	deps := strategy.Deps{Pool: s.pool, Redis: s.rdb, MySQL: s.mysql, Prefix: c.redisPrefix, Profile: c.profile,
		ClaimTTL: c.claimTTL, KeyTTL: c.keyTTL}
	if c.failpoints {
		deps.Failpoints = remote.NewSet()
	}
	st, err := strategy.New(c.strategy, deps)
	if err != nil {
		return nil, err
	}
	charges := server.New(server.Config{Strategy: st, Pool: s.pool, Accounts: s.accounts()})
	if c.failpoints {
		fp := &remote.Client{Logf: log.New(stderr, "paymentd: ", 0).Printf}
		charges = fp.Middleware(charges)
	}
	mux := http.NewServeMux()
	mux.Handle("/", charges)
	mux.HandleFunc("GET /healthz", health(s, info.Redis))
	if !c.verbose {
		return mux, nil
	}
	return logRequests(mux, log.New(stderr, "paymentd: ", 0)), nil
}

// health answers 200 when the stores the strategy uses answer a ping, else 503.
func health(s *stores, withRedis bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
		defer cancel()
		status, body := http.StatusOK, map[string]string{"status": "ok"}
		if err := s.ping(ctx, withRedis); err != nil {
			status, body = http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}
}

// logRequests logs one line per request once it is answered.
func logRequests(next http.Handler, l *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		l.Print(requestLine(r, rec, time.Since(start)))
	})
}

func requestLine(r *http.Request, rec *statusRecorder, d time.Duration) string {
	line := fmt.Sprintf("%s %s -> %d", r.Method, r.URL.Path, rec.status)
	if k := r.Header.Get(api.HeaderKey); k != "" {
		line += fmt.Sprintf(" key=%q", k)
	}
	if a := r.Header.Get(api.HeaderAttempt); a != "" {
		line += fmt.Sprintf(" attempt=%q", a)
	}
	if rec.Header().Get(api.HeaderReplayed) == "true" {
		line += " replayed"
	}
	return line + fmt.Sprintf(" %v", d.Round(10*time.Microsecond))
}

// statusRecorder remembers the status code written through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
