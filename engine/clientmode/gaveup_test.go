package clientmode_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/engine/clientmode"
	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestGaveUpBeforeTheRetryAfter is a loaded machine's first request: the
// client's timeout passes before it reads the 429 (Node loading its
// fetch; here a late dial and a late read), it closes the connection and
// retries after its own back-off, sooner than the Retry-After it never
// saw. That is no retry_after_ignored: the run passes, and a Retry-After
// it did read (op-03's 503) shows how it keeps one.
func TestGaveUpBeforeTheRetryAfter(t *testing.T) {
	t.Parallel()
	var first atomic.Bool
	first.Store(true)
	cfg := clientmode.Config{Func: keeper(&first), Shape: api.JSONShape, Seed: 4, Ops: 6, Bound: 2 * time.Minute, Services: services}
	rec, err := clientmode.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := rec.Run.Received
	if len(got) < 2 || got[0].RetryAfter == 0 || got[0].Conn == got[1].Conn || got[1].Arrived-got[0].Answered >= time.Second {
		t.Fatalf("the premise: seed 4's first request refused with a Retry-After, retried early on a new connection; got %+v", got[:min(2, len(got))])
	}
	res := scenarios.JudgeClient(rec)
	if res.Verdict != scenarios.Pass || !res.Exercised {
		t.Errorf("%s (exercised %v): %v %v", res.Verdict, res.Exercised, nonZero(res.Anomalies), res.Assumptions)
	}
}

// keeper is byHand's client called from Go: a key of its own kept on
// every try, 300 ms doubling between tries, at least the Retry-After;
// the run's very first request is sent late and read only after its
// timeout has passed.
func keeper(first *atomic.Bool) func(context.Context, clientmode.Call) error {
	return func(_ context.Context, c clientmode.Call) error {
		normal := &http.Client{Timeout: c.Timeout}
		clientFor := func() *http.Client {
			if first.Swap(false) {
				return late(c.Timeout)
			}
			return normal
		}
		body := fmt.Sprintf(`{"account":%q,"amount":%d,"currency":%q}`, c.Op.Account, c.Op.Amount, c.Op.Currency)
		if out := charge(clientFor, c.URL, []byte(body)); out != "succeeded" {
			return errors.New(out)
		}
		return nil
	}
}

// late is a client slow at everything for its first request: it dials
// when most of its timeout t has passed, and reads only after the rest.
func late(t time.Duration) *http.Client {
	var dialer net.Dialer
	return &http.Client{Timeout: t, Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		time.Sleep(t * 8 / 10)
		conn, err := dialer.DialContext(ctx, network, addr)
		return &lateConn{Conn: conn, from: time.Now().Add(t / 2)}, err
	}}}
}

type lateConn struct {
	net.Conn
	from time.Time
}

func (c *lateConn) Read(b []byte) (int, error) {
	time.Sleep(time.Until(c.from))
	return c.Conn.Read(b)
}
