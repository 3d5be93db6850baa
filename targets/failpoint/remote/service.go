package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// Client is the service side of the protocol: it calls the harness at each
// point a request passes. The zero value is ready to use.
type Client struct {
	// Timeout bounds one call (default DefaultTimeout). A call that gets
	// no answer in time, or cannot reach the harness, is given up: the
	// request goes on and makes no further calls.
	Timeout time.Duration
	// Logf says, once per Client, that the harness could not be reached or
	// refused a call (nil: the standard logger).
	Logf func(format string, args ...any)
	// AllowRemote honours control URLs off loopback. By default only a
	// loopback URL is called: a request cannot make the service call out
	// to anywhere else.
	AllowRemote bool
	// InProcess carries out the calls of a request whose control URL is
	// served by a Server of this process on that Server directly, with
	// nothing on the wire: a handler in the harness's own process (a go
	// test's) has its points evaluated as a built-in strategy's are. A
	// control URL no Server of this process serves is called as usual.
	InProcess bool

	init   sync.Once
	http   *http.Client
	warned sync.Once
}

// Default is the Client behind Middleware.
var Default = &Client{}

// Middleware reads the control URL of each request into its context, with
// the Default client; see Client.Middleware.
func Middleware(next http.Handler) http.Handler { return Default.Middleware(next) }

// Middleware reads the control URL a request carries (Header) into its
// context, where At, End and the Set of NewSet find it, and sends the
// request's "end" call when next returns, if the request called a point and
// did not end itself. A request without the header reaches next untouched.
func (c *Client) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, end := c.Begin(r.Context(), r.Header.Get(Header), r.Header.Get(api.HeaderAttempt))
		next.ServeHTTP(w, r.WithContext(ctx))
		end()
	})
}

// controlURL checks a header value: an absolute http URL, on loopback
// unless remote harnesses are allowed.
func (c *Client) controlURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("want an http URL without credentials, got %q", raw)
	}
	if !c.AllowRemote && !loopback(u.Hostname()) {
		return "", fmt.Errorf("control URL %s is not on loopback", u.Redacted())
	}
	return u.String(), nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Client) client() *http.Client {
	c.init.Do(func() {
		t := c.Timeout
		if t <= 0 {
			t = DefaultTimeout
		}
		tr := &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
		c.http = &http.Client{Transport: tr, Timeout: t}
	})
	return c.http
}

func (c *Client) warn(format string, args ...any) {
	c.warned.Do(func() {
		logf := c.Logf
		if logf == nil {
			logf = log.Printf
		}
		logf(format+" (said once; requests go on without the harness)", args...)
	})
}

// post makes one call and reports whether it was answered.
func (c *Client) post(ctx context.Context, u string, call Call) bool {
	b, _ := json.Marshal(call) // strings only: cannot fail
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		c.warn("failpoints: call to %s: %v", u, err)
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client().Do(req)
	if err != nil {
		c.warn("failpoints: harness at %s unreachable: %v", u, err)
		return false
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		c.warn("failpoints: harness at %s answered %d to %s: %s", u, resp.StatusCode, call.Point, bytes.TrimSpace(msg))
	}
	return true
}

type stateKey struct{}

// request is the protocol state of one request.
type request struct {
	client  *Client
	url     string
	attempt string
	local   *Server // the Server of this process the calls go to (InProcess); nil: the wire
	replica int     // the replica the control URL names, for local

	mu     sync.Mutex
	key    string
	called bool // a point was reported: an end is owed
	done   bool // ended, or the harness was not reachable
}

func stateOf(ctx context.Context) *request {
	st, _ := ctx.Value(stateKey{}).(*request)
	return st
}

// At reports that the request of ctx passes point p, with its idempotency
// key, and returns when the harness answers (it may hold the answer: a
// gate, a delay) or the client's timeout passes. It waits even if the
// request's own client has hung up: the harness decides, within its bound.
// Without a control URL in ctx (no Middleware, or a request without the
// header) it returns at once.
func At(ctx context.Context, p api.Point, key string) {
	st := stateOf(ctx)
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock() // the points of one request come one after another
	if st.done {
		return
	}
	st.called, st.key = true, key
	if !st.call(context.WithoutCancel(ctx), Call{Point: string(p), Key: key, Attempt: st.attempt}) {
		st.done = true // unreachable: no more calls for this request
	}
}

// call makes one call of the request, in process or on the wire, and
// reports whether it was answered.
func (st *request) call(ctx context.Context, c Call) bool {
	if st.local != nil {
		st.local.inProcess(ctx, c, st.replica)
		return true
	}
	return st.client.post(ctx, st.url, c)
}

// End reports that the work of the request of ctx is over, so the faults it
// fired heal. It is sent once, and only by a request that called a point;
// Middleware sends it when the handler returns, so call it only to end
// earlier (before writing a long answer, say).
func End(ctx context.Context) {
	if st := stateOf(ctx); st != nil {
		st.end(ctx)
	}
}

func (st *request) end(ctx context.Context) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done || !st.called {
		return
	}
	st.done = true
	st.call(context.WithoutCancel(ctx), Call{Point: PointEnd, Key: st.key, Attempt: st.attempt})
}

// NewSet returns a failpoint.Set armed at every point with a call to At:
// hand it to code that evaluates a *failpoint.Set (the built-in strategies'
// Deps.Failpoints) behind Middleware, and its Eval calls reach the harness.
// A request without the header costs the Set's bookkeeping, no call.
func NewSet() *failpoint.Set {
	s := &failpoint.Set{}
	for _, p := range api.Points() {
		s.Arm("remote", p, failpoint.Any, func(ctx context.Context, h failpoint.Hit) func() {
			At(ctx, h.Point, h.Key)
			return nil
		})
	}
	return s
}
