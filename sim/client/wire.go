package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// wire is the client's HTTP/1.1 transport. Each exchange runs in the
// caller's goroutine: the request goes out in one write, the answer is read
// on the same goroutine, and nothing is ever sent twice (net/http's
// Transport hands a request to a write and a read goroutine per connection,
// and re-sends a keyed POST when a reused connection fails).
type wire struct {
	dialer net.Dialer
	reuse  bool

	mu        sync.Mutex
	idle      map[string][]*wireConn // by addr, newest last
	abandoned []*wireConn            // given up on by the client, left open until close
	closed    bool

	targets sync.Map // URL -> target, parsed once
}

// maxIdle bounds how long a kept-alive connection waits for its next
// request: well under the idle timeouts servers use (Node's is 5 s), so a
// reused connection is not one the server is closing.
const maxIdle = 2 * time.Second

// maxIdleConns bounds the kept-alive connections per address.
const maxIdleConns = 256

// maxAbandoned bounds the connections a client leaves open after giving up
// on them; past it, one is closed (and its server hears the hang-up).
const maxAbandoned = 4096

// newWire: no TCP keep-alive probes (two setsockopt calls per dial saved),
// since a connection lives for one exchange or idles for at most maxIdle.
func newWire(reuse bool) *wire {
	return &wire{dialer: net.Dialer{Timeout: 2 * time.Second, KeepAlive: -1}, reuse: reuse, idle: map[string][]*wireConn{}}
}

// target is a parsed request URL: the host:port to dial, the Host header
// and the request line's target.
type target struct {
	url, addr, host, uri string
}

func (w *wire) target(raw string) (target, error) {
	if t, ok := w.targets.Load(raw); ok {
		return t.(target), nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, err
	}
	if u.Scheme != "http" || u.Host == "" {
		return target{}, fmt.Errorf("%q: the client speaks plain http to host:port", raw)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	t := target{url: raw, addr: addr, host: u.Host, uri: u.RequestURI()}
	w.targets.Store(raw, t)
	return t, nil
}

type wireConn struct {
	net.Conn
	br    *bufio.Reader
	since time.Time // idle since
}

// open reports whether an idle connection can carry a request: the server
// has not closed it (nor written to it unasked). One non-blocking peek at
// the socket; net/http's transport learns the same from the read it keeps
// pending on every idle connection.
func (c *wireConn) open() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = raw.Read(func(fd uintptr) bool {
		var one [1]byte
		_, _, rerr := syscall.Recvfrom(int(fd), one[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = errors.Is(rerr, syscall.EAGAIN) // nothing to read: open; 0 bytes: closed
		return true
	})
	return err == nil && alive
}

// exchange is what one request got back (body cut at maxBody).
type exchange struct {
	status int
	header http.Header
	body   []byte
	reused bool
}

// post sends one POST (head: its header lines, each ending in CRLF) and
// reads the answer. Errors name the request as net/http's do
// (Post "URL": cause); a dial error is a *net.OpError with Op "dial".
// When ctx's deadline passes first, the answer that comes later on the
// connection left open is handed to late (nil: never read).
func (w *wire) post(ctx context.Context, t target, head, body []byte, late func(exchange)) (exchange, error) {
	ex, err := w.exchange(ctx, t, head, body, late)
	if err != nil {
		if ctx.Err() != nil && !isDial(err) {
			err = ctx.Err()
		}
		err = &url.Error{Op: "Post", URL: t.url, Err: err}
	}
	return ex, err
}

func isDial(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func (w *wire) exchange(ctx context.Context, t target, head, body []byte, late func(exchange)) (exchange, error) {
	c, reused, err := w.conn(ctx, t.addr)
	if err != nil {
		return exchange{}, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	ex, keep, err := roundTrip(c, t, head, body, w.reuse)
	ex.reused = reused
	stopped := stop()
	switch {
	case !stopped && err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		w.abandon(c, late)
	case !stopped || !keep || err != nil:
		c.Close()
	default:
		w.putIdle(t.addr, c)
	}
	return ex, err
}

// abandon keeps a connection the client gave up on (its try timed out)
// open until the client closes: as in a network partition, the server is
// not told that nobody waits for its answer, so a service that cancels its
// work when its client hangs up is exercised like any other. The answer,
// if one comes before the client closes, is read as it arrives (reading
// tells the server nothing) and handed to late, unless late is nil.
func (w *wire) abandon(c *wireConn, late func(exchange)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(w.abandoned) >= maxAbandoned {
		c.Close()
		return
	}
	w.abandoned = append(w.abandoned, c)
	if late != nil {
		go readLate(c, late)
	}
}

// readLate reads the answer that comes on an abandoned connection and
// hands it to late; it ends, reading nothing, when the connection closes
// or the answer is cut (a deadline that struck mid-answer).
func readLate(c *wireConn, late func(exchange)) {
	if c.SetReadDeadline(time.Time{}) != nil {
		return
	}
	resp, err := readFinal(c.br)
	if err != nil {
		return
	}
	ex := exchange{status: resp.StatusCode, header: resp.Header}
	if ex.body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody)); err != nil {
		return
	}
	late(ex)
}

// roundTrip writes the request and reads its answer on c; keep says the
// connection can carry another request.
func roundTrip(c *wireConn, t target, head, body []byte, reuse bool) (exchange, bool, error) {
	buf := make([]byte, 0, len(t.uri)+len(t.host)+len(head)+len(body)+128)
	buf = append(buf, "POST "...)
	buf = append(buf, t.uri...)
	buf = append(buf, " HTTP/1.1\r\nHost: "...)
	buf = append(buf, t.host...)
	buf = append(buf, "\r\nUser-Agent: idemchaos\r\nContent-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n"...)
	buf = append(buf, head...)
	if !reuse {
		buf = append(buf, "Connection: close\r\n"...)
	}
	buf = append(buf, "\r\n"...)
	buf = append(buf, body...)
	if _, err := c.Write(buf); err != nil {
		return exchange{}, false, err
	}
	resp, err := readFinal(c.br)
	if err != nil {
		return exchange{}, false, err
	}
	ex := exchange{status: resp.StatusCode, header: resp.Header}
	ex.body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return exchange{}, false, err
	}
	return ex, reuse && !resp.Close && drained(resp.Body), nil
}

// readFinal reads responses until one that is not informational (1xx).
func readFinal(br *bufio.Reader) (*http.Response, error) {
	req := &http.Request{Method: http.MethodPost}
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, err
		}
	}
}

// drained reports whether the body has nothing left past what was read.
func drained(body io.Reader) bool {
	var one [1]byte
	n, err := body.Read(one[:])
	return n == 0 && err == io.EOF
}

// conn is a kept-alive connection to addr if one is fresh, else a new one.
func (w *wire) conn(ctx context.Context, addr string) (*wireConn, bool, error) {
	if c := w.takeIdle(addr); c != nil {
		return c, true, nil
	}
	nc, err := w.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return &wireConn{Conn: nc, br: bufio.NewReaderSize(nc, 4<<10)}, false, nil
}

func (w *wire) takeIdle(addr string) *wireConn {
	w.mu.Lock()
	defer w.mu.Unlock()
	for cs := w.idle[addr]; len(cs) > 0; cs = w.idle[addr] {
		c := cs[len(cs)-1]
		w.idle[addr] = cs[:len(cs)-1]
		if time.Since(c.since) < maxIdle && c.open() {
			return c
		}
		c.Close()
	}
	return nil
}

func (w *wire) putIdle(addr string, c *wireConn) {
	c.since = time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(w.idle[addr]) >= maxIdleConns {
		c.Close()
		return
	}
	w.idle[addr] = append(w.idle[addr], c)
}

// close closes the idle and the abandoned connections; later ones are
// closed as they return.
func (w *wire) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for _, c := range w.abandoned {
		c.Close()
	}
	w.abandoned = nil
	for addr, cs := range w.idle {
		for _, c := range cs {
			c.Close()
		}
		delete(w.idle, addr)
	}
}
