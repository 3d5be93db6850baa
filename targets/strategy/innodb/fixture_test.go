package innodb_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
	"github.com/idemchaos/idemchaos/targets/strategy"
)

// Time bounds: every call and every wait is bounded.
const (
	setupTimeout   = 30 * time.Second
	caseTimeout    = 30 * time.Second // one test
	requestTimeout = 10 * time.Second // one Handle call
	// inFlightBudget is how soon a duplicate of an in-flight request must
	// be answered: at once, never held until the first one ends.
	inFlightBudget = time.Second
	holdMax        = 8 * time.Second // a hold is released well before
)

const (
	account = "acct-1"
	poor    = "acct-poor" // too little money for pay: declined
	opening = 100_000
	theKey  = "key-1"
)

var (
	pay     = api.ChargeRequest{Account: account, Amount: 1250, Currency: "EUR"}
	payPoor = api.ChargeRequest{Account: poor, Amount: 1250, Currency: "EUR"}
)

// fixture is one strategy design on a database of its own (migrated, with
// the accounts), with its own failpoint set.
type fixture struct {
	t     *testing.T
	dsn   string
	db    *sql.DB
	deps  strategy.Deps
	build func(strategy.Deps) strategy.Strategy
}

func newFixture(t *testing.T, build func(strategy.Deps) strategy.Strategy) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	dsn, err := provision.MySQLDSN(provisiontest.MySQLDatabase(t, services))
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{t: t, dsn: dsn, build: build}
	fx.db = fx.pool(8)
	if err := innoledger.Migrate(ctx, fx.db); err != nil {
		t.Fatal(err)
	}
	for _, a := range []struct {
		id      string
		opening int64
	}{{account, opening}, {poor, 100}} {
		if err := innoledger.OpenAccount(ctx, fx.db, a.id, "EUR", a.opening); err != nil {
			t.Fatal(err)
		}
	}
	fx.deps = strategy.Deps{MySQL: fx.db, Profile: api.IETF, Failpoints: &failpoint.Set{}}
	return fx
}

// pool opens another pool on the fixture's database, closed when the test
// ends (before the database is dropped).
func (f *fixture) pool(maxConns int) *sql.DB {
	f.t.Helper()
	db, err := innoledger.Open(f.dsn, maxConns)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = db.Close() })
	return db
}

// replica builds the strategy on the fixture's stores; on, if given, is
// the pool it runs on instead of the fixture's.
func (f *fixture) replica(on ...*sql.DB) strategy.Strategy {
	d := f.deps
	if len(on) > 0 {
		d.MySQL = on[0]
	}
	return f.build(d)
}

// send runs one attempt of theKey through st, bounded in time.
func (f *fixture) send(ctx context.Context, st strategy.Strategy, attempt string, body api.ChargeRequest) strategy.Response {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return st.Handle(ctx, strategy.Request{Key: theKey, AttemptID: attempt, Body: body, Fingerprint: body.Fingerprint()})
}

// goSend runs one attempt in its own goroutine.
func (f *fixture) goSend(ctx context.Context, st strategy.Strategy, attempt string, body api.ChargeRequest) <-chan strategy.Response {
	done := make(chan strategy.Response, 1)
	go func() { done <- f.send(ctx, st, attempt, body) }()
	return done
}

// charges counts the ledger's charges made with theKey.
func (f *fixture) charges(ctx context.Context) int {
	f.t.Helper()
	snap, err := innoledger.Read(ctx, f.db)
	if err != nil {
		f.t.Fatal(err)
	}
	n := 0
	for _, c := range snap.Charges {
		if c.Key == theKey {
			n++
		}
	}
	return n
}

// lockWaits counts the transactions waiting on a lock in InnoDB.
func (f *fixture) lockWaits(ctx context.Context) int {
	f.t.Helper()
	var n int
	err := f.db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'`).Scan(&n)
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// awaitLockWaits waits until n transactions wait on a lock. InnoDB
// refreshes what information_schema.innodb_trx shows only when it was not
// read for 100 ms (CACHE_MIN_IDLE_TIME_US): polled faster, it never
// changes.
func (f *fixture) awaitLockWaits(ctx context.Context, n int) {
	f.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for f.lockWaits(ctx) < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("%d transactions never waited on a lock (%d do)", n, f.lockWaits(ctx))
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// within waits up to d for an answer.
func within(done <-chan strategy.Response, d time.Duration) (strategy.Response, bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case r := <-done:
		return r, true
	case <-timer.C:
		return strategy.Response{}, false
	}
}

// wait waits for an answer; every attempt is bounded by requestTimeout.
func wait(t *testing.T, done <-chan strategy.Response, who string) strategy.Response {
	t.Helper()
	r, ok := within(done, requestTimeout+time.Second)
	if !ok {
		t.Fatalf("%s never answered", who)
	}
	return r
}

func show(r strategy.Response) string {
	return fmt.Sprintf("%d %s (replayed=%v)", r.Status, r.Body, r.Replayed)
}

// hold pauses one attempt at the first of the armed points it reaches
// until freed (or max passes, or its context ends).
type hold struct {
	max     time.Duration
	reached chan api.Point
	release chan struct{}
	engage  sync.Once
	open    sync.Once
}

func newHold(fp *failpoint.Set, attempt string, points ...api.Point) *hold {
	h := &hold{max: holdMax, reached: make(chan api.Point, 1), release: make(chan struct{})}
	for _, p := range points {
		fp.Arm("hold-"+string(p), p, failpoint.Attempt(attempt), h.action)
	}
	return h
}

func (h *hold) action(ctx context.Context, hit failpoint.Hit) func() {
	first := false
	h.engage.Do(func() { first = true })
	if !first {
		return nil
	}
	h.reached <- hit.Point
	timer := time.NewTimer(h.max)
	defer timer.Stop()
	select {
	case <-h.release:
	case <-timer.C:
	case <-ctx.Done():
	}
	return nil
}

// await waits until the held attempt reached its point.
func (h *hold) await(t *testing.T) {
	t.Helper()
	select {
	case <-h.reached:
	case <-time.After(holdMax):
		t.Fatal("the attempt never reached its hold point")
	}
}

func (h *hold) free() { h.open.Do(func() { close(h.release) }) }
