package strategytest

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// storeErrorCase (d): the SQL store fails under one request. The answer is
// 503, nothing is charged, nothing is cached and the key is released: a
// retry of the same key executes and charges once (or replays a 2xx), and
// is never answered with the cached 5xx nor with 409. The account agrees
// with its charges throughout: the rolled-back charge took no money.
//
// The fault is real and deterministic: at before-commit (the charge is
// written, its transaction still open) a second connection kills the
// request's own connection and waits until the server has ended it. The
// request's COMMIT then finds its connection gone, exactly as when the
// server's link to its database dies mid-request; the transaction is
// rolled back by the database itself. On Postgres it is the backend of the
// case's database idle in a transaction (pgKill); on InnoDB, the one
// connection of the strategy's pool (innoKill).
func storeErrorCase(ctx context.Context, fx *fixture) violations {
	var v violations
	st := fx.replica()
	kill := newStoreKill(ctx, fx)
	fx.deps.Failpoints.Arm("kill-backend", api.BeforeCommit, failpoint.Attempt("A"), kill.action)
	a := fx.send(ctx, st, 0, "A", pay)
	kill.mustHaveFired()
	if a.Status != http.StatusServiceUnavailable {
		v.add("A, whose database connection died before commit, got %s; want 503", show(a))
	}
	v.charged(fx.charges(ctx), 0)
	v.balanced(fx.drift(ctx))
	retry := fx.send(ctx, st, 0, "B", pay)
	switch {
	case retry.Status >= 500:
		v.add("the retry got %s: a 5xx was cached (poisoned key)", show(retry))
	case retry.Status == fx.deps.Profile.InFlight:
		v.add("the retry got %s: the key was never released (poisoned key)", show(retry))
	case retry.Status/100 != 2:
		v.add("the retry got %s; want it to execute (201) or replay a 2xx", show(retry))
	default:
		v.charged(fx.charges(ctx), 1)
	}
	return v
}

// storeKill kills the request's database connection when the failpoint
// fires, and remembers whether it did, once.
type storeKill struct {
	fx    *fixture
	kill  func(ctx context.Context) error
	mu    sync.Mutex
	fired int
	err   error
}

// newStoreKill prepares the kill for the fixture's store: InnoDB's or
// Postgres's.
func newStoreKill(ctx context.Context, fx *fixture) *storeKill {
	fx.t.Helper()
	k := &storeKill{fx: fx}
	if fx.inno != nil {
		k.kill = innoKill(ctx, fx)
	} else {
		k.kill = pgKill(ctx, fx)
	}
	return k
}

func (k *storeKill) action(ctx context.Context, _ failpoint.Hit) func() {
	err := k.kill(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fired++
	k.err = err
	return nil
}

// mustHaveFired fails the test when the fault did not happen as planned:
// the case would then prove nothing either way.
func (k *storeKill) mustHaveFired() {
	k.fx.t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fired != 1 || k.err != nil {
		k.fx.t.Fatalf("the store fault did not fire as planned (fired %d times): %v", k.fired, k.err)
	}
}

// pgKill connects to the fixture's Postgres database and returns the kill:
// the one backend of that database with a transaction open, terminated.
// The case sends one request at a time: the request's backend is the only
// one idle inside a transaction at that moment, and the kill checks so.
func pgKill(ctx context.Context, fx *fixture) func(context.Context) error {
	fx.t.Helper()
	conn, err := pgx.Connect(ctx, fx.dsn)
	if err != nil {
		fx.t.Fatalf("connect the killer: %v", err)
	}
	fx.t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return func(ctx context.Context) error { return terminateOpenTransaction(ctx, conn) }
}

// terminateOpenTransaction finds the single backend of this database idle
// in a transaction and terminates it with pg_terminate_backend(pid,
// timeout), which waits up to 2 s for it to exit.
func terminateOpenTransaction(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`)
	if err != nil {
		return fmt.Errorf("find the open transaction: %w", err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return fmt.Errorf("find the open transaction: %w", err)
	}
	if len(pids) != 1 {
		return fmt.Errorf("%d backends idle in a transaction (%v); want exactly the request's one", len(pids), pids)
	}
	var gone bool
	if err := conn.QueryRow(ctx, `SELECT pg_terminate_backend($1, 2000)`, pids[0]).Scan(&gone); err != nil {
		return fmt.Errorf("terminate backend %d: %w", pids[0], err)
	}
	if !gone {
		return fmt.Errorf("backend %d did not exit within 2 s", pids[0])
	}
	return nil
}
