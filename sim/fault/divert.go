package fault

import (
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// Divert cuts the link as Cut does (its open connections close, its store
// is out of reach), but the proxy keeps listening: its upstream becomes a
// sink of the harness's, which takes each connection made while the link
// is cut, counts it and the first bytes its client sends, and resets it.
// Diverted then tells whether anything used the link while it was cut,
// which a disabled proxy (a closed listener) cannot. Heal restores the
// upstream. The sink listens on the harness's own address on its route to
// the Toxiproxy (loopback for the embedded one or one on the same host;
// the harness's container address for one in another container); a
// Toxiproxy that cannot dial it still cuts (its dial fails, it closes the
// connection), but the sink counts nothing.
//
// A marker toxic that does nothing (a noop that never fires) carries the
// upstream while the link is diverted, so a run killed then leaves a proxy
// that Existing heals.
func (l *Link) Divert() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sink == nil {
		s, err := openSink(l.back)
		if err != nil {
			return err
		}
		l.sink = s
	}
	if l.proxy.Upstream == l.sink.addr() {
		return nil // diverted already
	}
	if _, err := l.proxy.AddToxic(divertMarker+base64.RawURLEncoding.EncodeToString([]byte(l.upstream)), "noop", "downstream", 0, nil); err != nil {
		return fmt.Errorf("divert %s: %w", l.Name, err)
	}
	l.proxy.Upstream, l.proxy.Enabled = l.sink.addr(), true
	if err := l.proxy.Save(); err != nil {
		return fmt.Errorf("divert %s: %w", l.Name, err)
	}
	return nil
}

// Diverted is what the link's sink has taken since the link was made (a
// link never diverted: nothing).
func (l *Link) Diverted() Seen {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sink.seen()
}

// divertMarker prefixes the name of the marker toxic of a diverted link;
// the rest is the link's own upstream, in unpadded base64url.
const divertMarker = "idemchaos-diverted-from-"

// divertedFrom is the upstream a marker toxic among toxics names.
func divertedFrom(toxics toxiclient.Toxics) (string, bool) {
	for _, t := range toxics {
		enc, ok := strings.CutPrefix(t.Name, divertMarker)
		if !ok {
			continue
		}
		if up, err := base64.RawURLEncoding.DecodeString(enc); err == nil && len(up) > 0 {
			return string(up), true
		}
	}
	return "", false
}

// Seen is what a diverted link's sink took: the connections made through
// the proxy while the link was cut, and the bytes their clients sent
// before the sink reset them.
type Seen struct {
	Conns int
	Bytes int64
}

// Since is what was taken between before and s.
func (s Seen) Since(before Seen) Seen {
	return Seen{Conns: s.Conns - before.Conns, Bytes: s.Bytes - before.Bytes}
}

// sinkRead bounds the wait for a connection's first bytes: a store client
// speaks first (Postgres's startup or SSL request, a Redis command), so
// what it sends comes at once, and its failure is not delayed much more
// than a refused dial's.
const sinkRead = 50 * time.Millisecond

// sink stands in for a diverted link's upstream: a listener, on the
// harness's address as the Toxiproxy reaches it, that counts each
// connection and the first bytes its client sends, then resets it.
type sink struct {
	ln    net.Listener
	conns atomic.Int64
	bytes atomic.Int64
	wg    sync.WaitGroup
}

func openSink(host string) (*sink, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("sink: %w", err)
	}
	s := &sink{ln: ln}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *sink) addr() string { return s.ln.Addr().String() }

func (s *sink) seen() Seen {
	if s == nil {
		return Seen{}
	}
	return Seen{Conns: int(s.conns.Load()), Bytes: s.bytes.Load()}
}

func (s *sink) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil { // closed, or the host out of descriptors: nothing more is counted
			return
		}
		s.conns.Add(1)
		s.wg.Add(1)
		go s.take(c)
	}
}

// take counts what c's client sends first and resets c.
func (s *sink) take(c net.Conn) {
	defer s.wg.Done()
	_ = c.SetReadDeadline(time.Now().Add(sinkRead))
	buf := make([]byte, 4096)
	n, _ := c.Read(buf)
	s.bytes.Add(int64(n))
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // a reset, as from a host that drops the session
	}
	_ = c.Close()
}

func (s *sink) close() error {
	if s == nil {
		return nil
	}
	err := s.ln.Close()
	s.wg.Wait()
	return err
}
