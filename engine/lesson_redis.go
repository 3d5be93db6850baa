package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
)

// lessonTimeout bounds each step of a lesson: Redis applying the SET, the
// call returning once the reply is dropped.
const lessonTimeout = 5 * time.Second

// RedisRetryLesson sends one SET NX on a go-redis client with maxRetries
// (0: the library's default) through a Toxiproxy link to Redis. The link
// holds back every reply; once Redis holds the caller's token (read on the
// runner's own connection) the toxic is removed, which closes the
// connection the reply was on. What happens next is go-redis's own doing.
func (r *Builtin) RedisRetryLesson(ctx context.Context, maxRetries int) (scenarios.RedisRetry, error) {
	out := scenarios.RedisRetry{MaxRetries: maxRetries, Holder: "nobody"}
	opts, err := redis.ParseURL(r.env.RedisURL)
	if err != nil {
		return out, fmt.Errorf("redis url: %w", err)
	}
	link, err := r.link("lesson-redis", opts.Addr)
	if err != nil {
		return out, err
	}
	defer func() { _ = link.Close() }()
	w := &wire{}
	opts.Addr, opts.MaxRetries, opts.PoolSize, opts.DisableIdentity, opts.Dialer = link.Listen, maxRetries, 1, true, w.dial
	rdb := redis.NewClient(opts)
	defer func() { _ = rdb.Close() }()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return out, fmt.Errorf("redis through the link: %w", err)
	}
	r.cells++
	key, token := fmt.Sprintf("ic:%s:%d:lesson", r.runID, r.cells), "caller"
	defer r.redis.Del(context.WithoutCancel(ctx), key)
	w.reset()
	got, callErr, err := r.setWithReplyDropped(ctx, rdb, link, key, token)
	if err != nil {
		return out, err
	}
	out.Applied, out.Got = true, got
	if callErr != nil {
		out.Err = callErr.Error()
	}
	if held, _ := r.redis.Get(ctx, key).Result(); held == token {
		out.Holder = "the caller"
	}
	out.Sets, out.Dials = w.counts()
	return out, nil
}

// setWithReplyDropped runs the SET NX with the link's replies held back,
// waits for Redis to apply it, then removes the toxic and waits for the
// call to return.
func (r *Builtin) setWithReplyDropped(ctx context.Context, rdb *redis.Client, link *fault.Link, key, token string) (bool, error, error) {
	if err := link.Inject(fault.DropResponse, 0); err != nil {
		return false, nil, err
	}
	type result struct {
		ok  bool
		err error
	}
	done := make(chan result, 1)
	callCtx, cancel := context.WithTimeout(ctx, 2*lessonTimeout)
	defer cancel()
	go func() {
		ok, err := rdb.SetNX(callCtx, key, token, time.Minute).Result()
		done <- result{ok, err}
	}()
	applied := r.waitForValue(ctx, key, token)
	if err := link.Remove(fault.DropResponse); err != nil {
		return false, nil, err
	}
	if !applied {
		return false, nil, errors.New("lesson: Redis never applied the SET NX")
	}
	select {
	case res := <-done:
		return res.ok, res.err, nil
	case <-time.After(lessonTimeout):
		return false, nil, errors.New("lesson: the SET NX did not return once its reply was dropped")
	}
}

// waitForValue polls Redis, on the runner's own connection, until key holds
// value; false after lessonTimeout.
func (r *Builtin) waitForValue(ctx context.Context, key, value string) bool {
	deadline := time.Now().Add(lessonTimeout)
	for time.Now().Before(deadline) {
		if v, err := r.redis.Get(ctx, key).Result(); err == nil && v == value {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// wire counts what a client put on its connections: dials and SET commands.
type wire struct {
	mu          sync.Mutex
	dials, sets int
}

func (w *wire) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.dials++
	w.mu.Unlock()
	return countingConn{Conn: c, w: w}, nil
}

func (w *wire) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dials, w.sets = 0, 0
}

func (w *wire) counts() (sets, dials int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sets, w.dials
}

// countingConn counts the SET commands written on a connection (RESP:
// "*n\r\n$3\r\nset\r\n..."; go-redis writes each command in one Write).
type countingConn struct {
	net.Conn
	w *wire
}

var setCommand = []byte("\r\n$3\r\nset\r\n")

func (c countingConn) Write(p []byte) (int, error) {
	n := bytes.Count(bytes.ToLower(p), setCommand)
	c.w.mu.Lock()
	c.w.sets += n
	c.w.mu.Unlock()
	return c.Conn.Write(p)
}
