package engine

import (
	"context"
	"math"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The opening burst counts, per replica of its first try, the ops that
// start with the traffic: not one that waits for another op, for a delay
// or for an earlier stage.
func TestOpeningBurst(t *testing.T) {
	op := func(replica, after, stage int, delay time.Duration) workload.Op {
		return workload.Op{After: after, Stage: stage, Delay: delay, Group: -1, Tries: []workload.Try{{Replica: replica}}}
	}
	plan := workload.Plan{Ops: []workload.Op{
		op(0, -1, 0, 0), op(0, -1, 0, 0), op(2, -1, 0, 0), // three at once
		op(1, 0, 0, 0),                 // after op 0
		op(1, -1, 1, 0),                // a later stage
		op(1, -1, 0, time.Millisecond), // delayed
		{After: -1, Group: -1},         // no planned try: replica 0
	}}
	if got, want := openingBurst(plan, 3), []int{3, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("openingBurst = %v; want %v", got, want)
	}
	if got := openingBurst(workload.Plan{}, 0); !slices.Equal(got, []int{0}) {
		t.Errorf("openingBurst of no replicas = %v; want one replica with none", got)
	}
}

// A plan that slows the Postgres link warms every connection of each
// replica's pool; any other only its opening burst.
func TestConnsAhead(t *testing.T) {
	op := func(inject api.Injection) workload.Op {
		return workload.Op{After: -1, Group: -1, MaxTries: 2, Tries: []workload.Try{{Inject: inject}, {Replica: 1}}}
	}
	plain := workload.Plan{Ops: []workload.Op{op(api.Injection{}), op(api.Injection{Action: api.Delay, Arg: 200 * time.Millisecond, Point: api.BeforeCommit})}}
	if got, want := connsAhead(plain, 2), []int{2, 0}; !slices.Equal(got, want) {
		t.Errorf("connsAhead without link latency = %v; want the opening burst %v", got, want)
	}
	slowed := workload.Plan{Ops: []workload.Op{op(api.Injection{}), op(api.Injection{Action: api.PGLatency, Arg: 500 * time.Millisecond, Point: api.BeforeCommit})}}
	for i, n := range connsAhead(slowed, 2) {
		if n != math.MaxInt {
			t.Errorf("connsAhead with pg-latency: replica %d warms %d; want its whole pool", i, n)
		}
	}
}

// silent accepts connections and never answers them, counting them: a
// postmaster whose forks queue past the connect timeout.
func silent(t *testing.T) (addr string, accepted *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int32)
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return ln.Addr().String(), accepted
}

// The warm-up opens again, one at a time and for a bounded while, the
// connections of its burst that timed out; a server that refuses is not
// tried again.
func TestWarmReopensWhatTimedOut(t *testing.T) {
	addr, accepted := silent(t)
	pool := testPool(t, addr)
	start := time.Now()
	err := warm(context.Background(), pool, nil, 2)
	if err == nil || !pgconn.Timeout(err) {
		t.Fatalf("warm on a silent server: %v", err)
	}
	if n := accepted.Load(); n < 4 {
		t.Errorf("%d connection attempts: the timed-out ones were not opened again", n)
	}
	if took := time.Since(start); took > time.Duration(warmPatience+2)*pool.Config().ConnConfig.ConnectTimeout {
		t.Errorf("warm took %s: retries not bounded", took)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String()
	ln.Close()
	start = time.Now()
	if err := warm(context.Background(), testPool(t, refused), nil, 2); err == nil || pgconn.Timeout(err) {
		t.Fatalf("warm on a refusing server: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("a refusing server was tried for %s", took)
	}
}

// testPool is a pool of 2 on addr with a 100ms connect timeout.
func testPool(t *testing.T, addr string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig("postgres://postgres@" + addr + "/x?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns, cfg.ConnConfig.ConnectTimeout = 2, 100*time.Millisecond
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
