package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/ledger"
	"github.com/idemchaos/idemchaos/targets/server"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// The net/http lesson's request: one account, one keyed POST.
const (
	lessonAccount = "acct-1"
	lessonAttempt = "app-1"
)

// HTTPResendLesson serves the built-in server with strategy on loopback,
// behind a handler that, the first time it sees the lesson's attempt, lets
// the server do the work and then closes the connection without a byte of
// the answer. The application is a plain net/http client on Go's default
// Transport settings: a warm-up GET, then the keyed POST, once, on the
// connection the GET left idle.
func (r *Builtin) HTTPResendLesson(ctx context.Context, strategyName string) (scenarios.HTTPResend, error) {
	out := scenarios.HTTPResend{Strategy: strategyName}
	if err := ledger.Reset(ctx, r.pool); err != nil {
		return out, err
	}
	if err := ledger.Open(ctx, r.pool, lessonAccount, "EUR", 1_000_000); err != nil {
		return out, err
	}
	st, err := strategy.New(strategyName, strategy.Deps{Pool: r.pool, Redis: r.redis, Profile: api.IETF})
	if err != nil {
		return out, err
	}
	log := &server.Log{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return out, err
	}
	srv := &http.Server{Handler: &closeOnce{next: server.New(server.Config{Strategy: st, Pool: r.pool, Log: log}),
		attempt: lessonAttempt}, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	base := "http://" + ln.Addr().String()
	r.cells++
	key := fmt.Sprintf("ic-%s-%d-lesson", r.runID, r.cells)
	out.Reused, out.Writes, out.Status, out.Replayed, out.Err = postOnce(ctx, base, key)
	entries := log.Entries()
	for _, e := range entries {
		if e.AttemptID == lessonAttempt {
			out.ServerSaw++
		}
	}
	_, out.Hidden = Merge([]history.Attempt{{ID: lessonAttempt, Key: key}}, entries)
	snap, err := ledger.Read(ctx, r.pool)
	if err != nil {
		return out, err
	}
	for _, c := range snap.Charges {
		if c.Key == key {
			out.Charges++
		}
	}
	return out, nil
}

// postOnce is the application: a GET that leaves a keep-alive connection
// idle, then one Do of the keyed POST, traced.
func postOnce(ctx context.Context, base, key string) (reused bool, writes, status int, replayed bool, errText string) {
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	if resp, err := hc.Get(base + api.PathAccounts + lessonAccount); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	body := fmt.Sprintf(`{"account":%q,"amount":1200,"currency":"EUR"}`, lessonAccount)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+api.PathCharges, bytes.NewReader([]byte(body)))
	if err != nil {
		return false, 0, 0, false, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderKey, key)
	req.Header.Set(api.HeaderAttempt, lessonAttempt)
	var mu sync.Mutex
	trace := &httptrace.ClientTrace{
		GotConn:      func(i httptrace.GotConnInfo) { mu.Lock(); reused = reused || i.Reused; mu.Unlock() },
		WroteRequest: func(httptrace.WroteRequestInfo) { mu.Lock(); writes++; mu.Unlock() },
	}
	resp, err := hc.Do(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		return reused, writes, 0, false, err.Error()
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return reused, writes, resp.StatusCode, resp.Header.Get(api.HeaderReplayed) == "true", ""
}

// closeOnce lets next do the work of the first request carrying attempt,
// then closes its connection before a byte of the answer: the connection
// dies at the wrong moment, after the work and before the response.
type closeOnce struct {
	next    http.Handler
	attempt string
	mu      sync.Mutex
	done    bool
}

func (c *closeOnce) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	c.mu.Lock()
	first := !c.done && req.Header.Get(api.HeaderAttempt) == c.attempt
	c.done = c.done || first
	c.mu.Unlock()
	if !first {
		c.next.ServeHTTP(w, req)
		return
	}
	c.next.ServeHTTP(&discard{header: http.Header{}}, req)
	if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
		_ = conn.Close()
	}
}

// discard is a ResponseWriter that keeps nothing: the answer never leaves.
type discard struct{ header http.Header }

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}
