package shop

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// The failpoint protocol, written from docs/failpoints.md as a team adds it
// to its service for its CI: when switched on (--failpoints), a request
// that carries the control URL header reports each named point it passes
// to that URL (loopback only) and goes on when the answer comes; it never
// fails a request.

// controlHeader carries the harness's control URL.
const controlHeader = "X-Idemchaos-Failpoints"

// Points reports a request's points to the harness.
type Points struct {
	on     bool
	client *http.Client
	warn   sync.Once
}

// NewPoints is the protocol, on or off.
func NewPoints(on bool) *Points {
	return &Points{on: on, client: &http.Client{Timeout: 15 * time.Second}}
}

// Request is one request's side of the protocol: "" URL when it has none.
type Request struct {
	p       *Points
	url     string
	attempt string
	called  bool
}

// Begin reads r's control URL, when the protocol is on and the URL is on
// loopback.
func (p *Points) Begin(r *http.Request) *Request {
	req := &Request{p: p, attempt: r.Header.Get("X-Idemchaos-Attempt")}
	u := r.Header.Get(controlHeader)
	if !p.on || u == "" {
		return req
	}
	parsed, err := url.Parse(u)
	if err != nil || !loopback(parsed.Hostname()) {
		p.once("ignoring a control URL that is not on loopback: %q", u)
		return req
	}
	req.url = u
	return req
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// At reports point for key and waits for the harness's answer; the
// request's own cancellation never cuts it short.
func (r *Request) At(ctx context.Context, point, key string) {
	if r.url == "" {
		return
	}
	r.called = true
	body, _ := json.Marshal(map[string]string{"point": point, "key": key, "attempt": r.attempt})
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		r.url = ""
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.p.client.Do(req)
	if err != nil {
		r.p.once("the harness did not answer: %v", err)
		r.url = "" // no more calls for this request
		return
	}
	_ = resp.Body.Close()
}

// End reports the end of the request's work, if it reported a point.
func (r *Request) End(ctx context.Context, key string) {
	if r.called {
		r.At(ctx, "end", key)
	}
}

func (p *Points) once(format string, args ...any) {
	p.warn.Do(func() { log.Printf("failpoints: "+format, args...) })
}
