package strategytest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// roundTrips counts what a pgx connection sends to Postgres and waits for:
// each statement sent alone, each batch (a pipeline, one wait) and each
// prepare.
// It keeps the statements of each round trip since the last reset.
type roundTrips struct {
	n    atomic.Int64
	mu   sync.Mutex
	sent [][]string
}

func (c *roundTrips) trip(sql ...string) {
	c.n.Add(1)
	c.mu.Lock()
	c.sent = append(c.sent, sql)
	c.mu.Unlock()
}

// statements returns the statements of each round trip since the last
// call, and forgets them.
func (c *roundTrips) statements() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sent
	c.sent = nil
	return s
}

func (c *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.trip(d.SQL)
	return ctx
}
func (c *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trip()
	return ctx
}
func (c *roundTrips) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.mu.Lock()
	c.sent[len(c.sent)-1] = append(c.sent[len(c.sent)-1], d.SQL)
	c.mu.Unlock()
}
func (c *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// A prepare is a round trip unless the statement was prepared already:
// pgx traces its start before it looks, so it is counted at its end.
func (c *roundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	return context.WithValue(ctx, preparing{}, d.SQL)
}
func (c *roundTrips) TracePrepareEnd(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareEndData) {
	if !d.AlreadyPrepared {
		sql, _ := ctx.Value(preparing{}).(string)
		c.trip("prepare " + sql)
	}
}

// preparing is the context key of the statement a prepare is for.
type preparing struct{}

// TestPostgresRoundTrips: on a warm connection (its statements prepared) a
// fresh key's charge, a replay and a retry with another payload cost the
// Postgres round trips of the pipelined design, not one per statement:
// pg-tx sent eight for a fresh key before (BEGIN, lock, read, insert,
// debit, charge row, stored response, COMMIT).
func TestPostgresRoundTrips(t *testing.T) {
	budgets := []struct {
		name                    string
		fresh, replay, mismatch int64
	}{
		{"none", 2, 2, 2}, // BEGIN+charge, COMMIT: every request charges
		{"pg-tx", int64(len(strategy.PgTxFresh())), int64(len(strategy.PgTxReplay())), 2},
		{"pg-nofingerprint", 2, 2, 2},
		{"pg-success-only", 2, 2, 2},
		{"pg-blocking-claim", 2, 2, 2},
		{"redis-pg-guard", 2, 0, 0}, // a replay and a mismatch are Redis's
		{"pg-split-tx", 3, 1, 1},    // the claim commits on its own
	}
	for _, b := range budgets {
		t.Run(b.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
			defer cancel()
			var rt roundTrips
			pool := openPool(ctx, t, provisiontest.Database(t, services), func(c *pgxpool.Config) {
				c.MaxConns = 1 // one connection: its statement cache is warm after the first requests
				c.ConnConfig.Tracer = &rt
			})
			rdb := openRedis(t)
			prefix := pool.Config().ConnConfig.Database + ":"
			t.Cleanup(func() { dropPrefix(rdb, prefix) })
			st, err := strategy.New(b.name, strategy.Deps{Pool: pool, Redis: rdb, Prefix: prefix,
				Profile: api.IETF, Failpoints: &failpoint.Set{}})
			if err != nil {
				t.Fatal(err)
			}
			other := pay
			other.Amount++
			send := func(key string, body api.ChargeRequest) (int, int64) {
				before := rt.n.Load()
				resp := st.Handle(ctx, strategy.Request{Key: key, AttemptID: key + body.Fingerprint(), Body: body,
					Fingerprint: body.Fingerprint()})
				return resp.Status, rt.n.Load() - before
			}
			for _, k := range []string{"warm-1", "warm-2"} { // prepare every statement of each path
				send(k, pay)
				send(k, pay)
				send(k, other)
			}
			check := func(what string, want int64, status int, got int64) {
				t.Helper()
				if got > want {
					t.Errorf("%s: %d round trips (status %d), want at most %d", what, got, status, want)
				}
			}
			rt.statements()
			status, n := send("key-rt", pay)
			if status != 201 {
				t.Fatalf("fresh key: status %d, want 201", status)
			}
			check("fresh key", b.fresh, status, n)
			fresh := rt.statements()
			status, n = send("key-rt", pay)
			check("replay", b.replay, status, n)
			if b.name == "none" { // pgbench's baseline is what none sends
				sameScript(t, "fresh key", fresh, strategy.NoneCharge())
			}
			if b.name == "pg-tx" { // the script pgbench replays is what pg-tx sends
				sameScript(t, "fresh key", fresh, strategy.PgTxFresh())
				sameScript(t, "replay", rt.statements(), strategy.PgTxReplay())
			}
			status, n = send("key-rt", other)
			check(fmt.Sprintf("another payload (%d)", status), b.mismatch, status, n)
		})
	}
}

// sameScript compares the statements of each round trip with a script.
func sameScript(t *testing.T, what string, sent [][]string, want strategy.Script) {
	t.Helper()
	var w [][]string
	for _, trip := range want {
		var sqls []string
		for _, st := range trip {
			sqls = append(sqls, st.SQL)
		}
		w = append(w, sqls)
	}
	if !slices.EqualFunc(sent, w, slices.Equal) {
		t.Errorf("%s: sent %q\nthe script says %q", what, sent, w)
	}
}
