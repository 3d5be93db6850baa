// Package fault places network faults through Toxiproxy: between the
// simulated clients and the target (a response dropped after the server
// answered), and between the target and its stores (a cut or slowed link).
//
// Toxiproxy decides toxicity per TCP connection with an RNG that cannot be
// seeded, so this package never relies on it: every toxic has toxicity 1 and
// the harness decides per request, from the run's seed, which path a request
// takes (a clean link or a faulty one). The same code drives the embedded
// server and an external one (--toxiproxy-url).
//
// It is an internal part of idemchaos, not a stable API: it may change
// between releases.
package fault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Toxiproxy is a handle on a Toxiproxy API, embedded or external.
type Toxiproxy struct {
	URL    string
	client *toxiclient.Client
	// back is the harness's own address as this Toxiproxy reaches it:
	// where a diverted link's sink listens (Divert).
	back string
	srv  *toxiproxy.ApiServer // nil when external
	api  *http.Server         // nil when external
}

// Embedded starts an in-process Toxiproxy whose API listens on a free
// loopback port.
func Embedded() (*Toxiproxy, error) {
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("toxiproxy api: %w", err)
	}
	api := &http.Server{Handler: srv.Routes(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = api.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	return &Toxiproxy{URL: url, client: toxiclient.NewClient(url), back: "127.0.0.1", srv: srv, api: api}, nil
}

// External connects to a running Toxiproxy API at url and checks it answers.
func External(url string) (*Toxiproxy, error) {
	t := &Toxiproxy{URL: url, client: toxiclient.NewClient(url)}
	if _, err := t.client.Version(); err != nil {
		return nil, fmt.Errorf("toxiproxy at %s does not answer: %w", url, err)
	}
	var err error
	if t.back, err = reachBack(url); err != nil {
		return nil, fmt.Errorf("toxiproxy at %s: %w", url, err)
	}
	return t, nil
}

// reachBack is the harness's own address on its route to the Toxiproxy
// API at url: loopback for a Toxiproxy on loopback, the harness's
// container or pod address for one in another container. A sink there is
// where that Toxiproxy can dial it.
func reachBack(url string) (string, error) {
	u, err := neturl.Parse(url)
	if err != nil || u.Host == "" {
		u, err = neturl.Parse("http://" + url)
	}
	if err != nil {
		return "", err
	}
	host := u.Host
	switch {
	case u.Port() != "":
	case u.Scheme == "https":
		host = net.JoinHostPort(u.Hostname(), "443")
	default:
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	c, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return c.LocalAddr().(*net.TCPAddr).IP.String(), nil
}

// Close stops an embedded Toxiproxy and every proxy it holds. For an external
// one it does nothing: links are deleted by their owners.
func (t *Toxiproxy) Close() error {
	if t.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t.srv.Collection.Clear()
	return errors.Join(t.api.Shutdown(ctx), t.srv.Shutdown())
}

// Link is one proxy: clients (or a target) dial Listen instead of the upstream.
type Link struct {
	Name   string
	Listen string // host:port
	shared bool   // a proxy the user made: healed, never deleted
	// mu serialises the calls on proxy: the Toxiproxy client writes the
	// proxy's state back into it on every call, and a request's fault may
	// heal while the run heals every link after its traffic.
	mu       sync.Mutex
	proxy    *toxiclient.Proxy
	upstream string // what the proxy forwards to when the link is whole
	sink     *sink  // where Divert sends it; nil until then
	back     string // the harness's address as the Toxiproxy reaches it
	embedded bool   // the Toxiproxy is this process's: it has loseReplies
}

// Link creates a proxy named name, listening on a free loopback port, in
// front of upstream (host:port).
func (t *Toxiproxy) Link(name, upstream string) (*Link, error) {
	p, err := t.client.CreateProxy(name, "127.0.0.1:0", upstream)
	if err != nil {
		return nil, fmt.Errorf("create proxy %s: %w", name, err)
	}
	return &Link{Name: name, Listen: p.Listen, proxy: p, upstream: upstream, back: t.back, embedded: t.srv != nil}, nil
}

// Existing takes hold of a proxy someone else made (a user routes their
// service's store traffic through it). Closing the link heals it and leaves
// it in place. A proxy an earlier run left diverted (killed while a link
// was cut) is healed at once, back in front of its own upstream.
func (t *Toxiproxy) Existing(name string) (*Link, error) {
	p, err := t.client.Proxy(name)
	if err != nil {
		return nil, fmt.Errorf("toxiproxy at %s has no proxy %q: %w", t.URL, name, err)
	}
	l := &Link{Name: name, Listen: p.Listen, proxy: p, upstream: p.Upstream, back: t.back, shared: true, embedded: t.srv != nil}
	left, ok := divertedFrom(p.ActiveToxics)
	if !ok {
		return l, nil
	}
	l.upstream = left
	if err := l.Heal(); err != nil {
		return nil, fmt.Errorf("proxy %q was left diverted by an earlier run: %w", name, err)
	}
	return l, nil
}

// Close deletes the proxy, closing its connections; a shared proxy is only
// healed. Either way its sink closes.
func (l *Link) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if l.shared {
		err = l.heal()
	} else if err = l.proxy.Delete(); err != nil {
		err = fmt.Errorf("delete proxy %s: %w", l.Name, err)
	}
	return errors.Join(err, l.sink.close())
}

// Toxic names a fault kind.
type Toxic string

// The toxics. Each is applied with toxicity 1 (0 would mean never): the
// harness, not Toxiproxy's unseedable RNG, decides which requests meet it.
const (
	// DropResponse swallows everything the target sends back: the request
	// reaches the server and commits, the client never learns the outcome.
	DropResponse Toxic = workload.DropResponse
	// Blackhole swallows traffic both ways without closing: calls hang.
	Blackhole Toxic = "blackhole"
	// Latency delays every reply by the link's latency setting.
	Latency Toxic = "latency"
	// LoseReplies swallows everything the store sends back and closes the
	// connection LoseRepliesClose after the first reply it lost (on an
	// external Toxiproxy, LoseRepliesClose after it began): what the client sent still reaches
	// the store and runs (a COMMIT commits), the client learns only that
	// its connection broke.
	LoseReplies Toxic = "lose-replies"
)

// LoseRepliesClose is how long after a reply is lost LoseReplies closes the
// connection.
const LoseRepliesClose = 50 * time.Millisecond

// Inject adds the toxic to the link. For Latency, delay is the added delay
// per reply; it is ignored otherwise.
func (l *Link) Inject(t Toxic, delay time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	switch t {
	case DropResponse:
		_, err = l.proxy.AddToxic(string(t), "timeout", "downstream", 1.0, toxiclient.Attributes{"timeout": 0})
	case Blackhole:
		_, err = l.proxy.AddToxic(string(t)+"-up", "timeout", "upstream", 1.0, toxiclient.Attributes{"timeout": 0})
		if err == nil {
			_, err = l.proxy.AddToxic(string(t), "timeout", "downstream", 1.0, toxiclient.Attributes{"timeout": 0})
		}
	case Latency:
		_, err = l.proxy.AddToxic(string(t), "latency", "downstream", 1.0, toxiclient.Attributes{"latency": delay.Milliseconds()})
	case LoseReplies:
		if l.embedded {
			_, err = l.proxy.AddToxic(string(t), loseRepliesType, "downstream", 1.0,
				toxiclient.Attributes{"after": LoseRepliesClose.Milliseconds(), "idle": loseRepliesIdle.Milliseconds()})
		} else {
			_, err = l.proxy.AddToxic(string(t), "timeout", "downstream", 1.0, toxiclient.Attributes{"timeout": LoseRepliesClose.Milliseconds()})
		}
	default:
		return fmt.Errorf("unknown toxic %q", t)
	}
	if err != nil {
		return fmt.Errorf("add %s to %s: %w", t, l.Name, err)
	}
	return nil
}

// Remove takes the toxic t off the link again (Blackhole: both halves).
func (l *Link) Remove(t Toxic) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := []string{string(t)}
	if t == Blackhole {
		names = append(names, string(t)+"-up")
	}
	for _, n := range names {
		if err := l.proxy.RemoveToxic(n); err != nil {
			return fmt.Errorf("remove %s from %s: %w", n, l.Name, err)
		}
	}
	return nil
}

// Cut takes the link down: open connections are closed and new ones refused,
// as when a store's host drops off the network.
func (l *Link) Cut() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.proxy.Disable(); err != nil {
		return fmt.Errorf("cut %s: %w", l.Name, err)
	}
	return nil
}

// Heal removes every toxic and brings the link back up, in front of its
// own upstream.
func (l *Link) Heal() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.heal()
}

func (l *Link) heal() error {
	l.proxy.Upstream = l.upstream
	if err := l.proxy.Enable(); err != nil {
		return fmt.Errorf("heal %s: %w", l.Name, err)
	}
	toxics, err := l.proxy.Toxics()
	if err != nil {
		return fmt.Errorf("heal %s: %w", l.Name, err)
	}
	for _, t := range toxics {
		if err := l.proxy.RemoveToxic(t.Name); err != nil {
			return fmt.Errorf("heal %s: remove %s: %w", l.Name, t.Name, err)
		}
	}
	return nil
}
