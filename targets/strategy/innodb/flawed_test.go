package innodb_test

import (
	"bytes"
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// TestBlockingClaimHoldsDuplicate: innodb-blocking-claim's plain INSERT
// waits on the key row A inserted: B, sent while A is paused after its
// claim, gets no answer while A holds the key (InnoDB shows its
// transaction in LOCK WAIT), then A's answer replayed once A commits.
func TestBlockingClaimHoldsDuplicate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewBlockingClaim)
	st := fx.replica()
	h := newHold(fx.deps.Failpoints, "A", api.AfterClaim)
	defer h.free()
	aDone := fx.goSend(ctx, st, "A", pay)
	h.await(t)
	start := time.Now()
	bDone := fx.goSend(ctx, st, "B", pay)
	fx.awaitLockWaits(ctx, 1)
	if b, answered := within(bDone, inFlightBudget); answered {
		t.Fatalf("B answered %s while A held the key: not held", show(b))
	}
	h.free()
	a := wait(t, aDone, "A")
	b := wait(t, bDone, "B")
	took := time.Since(start)
	if a.Status != http.StatusCreated || b.Status != http.StatusCreated || !bytes.Equal(a.Body, b.Body) || !b.Replayed {
		t.Fatalf("A %s, B %s; want B held, then A's 201 replayed", show(a), show(b))
	}
	if n := fx.charges(ctx); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
	t.Logf("B held %s, then replayed", took.Round(time.Millisecond))
}

// TestBlockingClaimDeadlocks: when the holder of the key rolls back (its
// request failed), the two duplicates waiting on its row deadlock: InnoDB
// kills one (1213), answered 503, a 5xx for a concurrent duplicate; the
// other charges.
func TestBlockingClaimDeadlocks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewBlockingClaim)
	st := fx.replica()
	h := newHold(fx.deps.Failpoints, "A", api.AfterClaim)
	defer h.free()
	aCtx, failA := context.WithCancel(ctx)
	aDone := fx.goSend(aCtx, st, "A", pay)
	h.await(t)
	bDone, cDone := fx.goSend(ctx, st, "B", pay), fx.goSend(ctx, st, "C", pay)
	fx.awaitLockWaits(ctx, 2)
	failA() // A's request ends before its commit: its transaction rolls back
	a := wait(t, aDone, "A")
	b, c := wait(t, bDone, "B"), wait(t, cDone, "C")
	if a.Status < 500 {
		t.Fatalf("A, failed before its commit: %s", show(a))
	}
	if b.Status == http.StatusCreated {
		b, c = c, b
	}
	if c.Status != http.StatusCreated || b.Status != http.StatusServiceUnavailable || !strings.Contains(string(b.Body), "Deadlock") {
		t.Fatalf("B %s, C %s; want one killed as a deadlock victim (503), the other charged", show(b), show(c))
	}
	if n := fx.charges(ctx); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
	t.Logf("the deadlock victim got %s", show(b))
}

// TestTxDoesNotDeadlock: the same interleaving on innodb-tx: the
// duplicates are refused at once (409) while A holds the key, so none
// waits to deadlock; a retry after A rolled back charges.
func TestTxDoesNotDeadlock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewTx)
	st := fx.replica()
	h := newHold(fx.deps.Failpoints, "A", api.AfterClaim)
	defer h.free()
	aCtx, failA := context.WithCancel(ctx)
	aDone := fx.goSend(aCtx, st, "A", pay)
	h.await(t)
	b, c := fx.send(ctx, st, "B", pay), fx.send(ctx, st, "C", pay)
	failA()
	wait(t, aDone, "A")
	d := fx.send(ctx, st, "D", pay)
	if b.Status != http.StatusConflict || c.Status != http.StatusConflict || d.Status != http.StatusCreated {
		t.Fatalf("B %s, C %s, D %s; want 409, 409, then 201 after A rolled back", show(b), show(c), show(d))
	}
	if n := fx.charges(ctx); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
}

// TestInsertIgnoreChargesTwice: innodb-insert-ignore's B looks the key up
// (absent: its snapshot is fixed) and is paused; A charges and commits the
// key; B's INSERT IGNORE then reports the key taken, its second look-up
// under the same snapshot finds no row, and B charges again and overwrites
// A's stored answer: two charges, and the key now replays B's charge, not
// the one A's client was given.
func TestInsertIgnoreChargesTwice(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewInsertIgnore)
	st := fx.replica()
	h := newHold(fx.deps.Failpoints, "B", api.AfterCheck)
	defer h.free()
	bDone := fx.goSend(ctx, st, "B", pay)
	h.await(t)
	a := fx.send(ctx, st, "A", pay)
	h.free()
	b := wait(t, bDone, "B")
	probe := fx.send(ctx, st, "P", pay)
	if a.Status != http.StatusCreated || b.Status != http.StatusCreated {
		t.Fatalf("A %s, B %s; want both 201", show(a), show(b))
	}
	if n := fx.charges(ctx); n != 2 {
		t.Fatalf("%d charges; want 2: B charged again", n)
	}
	if bytes.Equal(a.Body, b.Body) || !bytes.Equal(probe.Body, b.Body) {
		t.Fatalf("A %s, B %s, probe %s; want two charges, the key replaying B's", show(a), show(b), show(probe))
	}
	t.Logf("A %s; B %s; a probe replays %s", a.Body, b.Body, probe.Body)
}

// TestInsertIgnoreSnapshotHidesTheWinner holds the InnoDB fact the flaw
// rests on, on the server: in REPEATABLE READ, after a first read, INSERT
// IGNORE of a key committed since reports it taken (0 rows), a SELECT
// still misses it, an UPDATE (a locking read) finds it.
func TestInsertIgnoreSnapshotHidesTheWinner(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewInsertIgnore)
	b := conn(t, fx.db)
	count := func() (n int) {
		if err := b.QueryRowContext(ctx, "SELECT count(*) FROM idempotency_keys WHERE `key` = 'k'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	mustExec(t, b, "START TRANSACTION")
	before := count()
	mustExec(t, fx.db, "INSERT INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES ('k', 'f', 201, 'x')")
	ignored := mustExec(t, b, "INSERT IGNORE INTO idempotency_keys (`key`, fingerprint, response_status, response_body) VALUES ('k', 'f', 0, '')")
	after := count()
	updated := mustExec(t, b, "UPDATE idempotency_keys SET response_status = 402 WHERE `key` = 'k'")
	seen := count()
	mustExec(t, b, "ROLLBACK")
	if before != 0 || ignored != 0 || after != 0 || updated != 1 || seen != 1 {
		t.Fatalf("read %d, INSERT IGNORE %d rows, read %d, UPDATE %d rows, read %d; want 0, 0, 0, 1, 1", before, ignored, after, updated, seen)
	}
}

// TestGetLockStuckAfterRefusal: innodb-get-lock answers a declined charge
// (402) without releasing the key's GET_LOCK, which stays with the
// session of the pooled connection: retries on another replica's pool get
// 409 for as long as that connection lives (here: three retries over
// 300 ms); a retry on the holding connection takes the lock again and
// replays the 402; once the first replica's pool is closed, the key
// answers again.
func TestGetLockStuckAfterRefusal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewGetLock)
	pool0, pool1 := fx.pool(1), fx.pool(2) // replica 0 has one connection: its retries land on it
	r0, r1 := fx.replica(pool0), fx.replica(pool1)
	first := fx.send(ctx, r0, "A", payPoor)
	if first.Status != http.StatusPaymentRequired {
		t.Fatalf("first: %s; want 402", show(first))
	}
	holder := lockHolder(ctx, t, fx.db)
	if !holder.Valid {
		t.Fatal("the key's lock is free after the 402: the flaw is gone")
	}
	for i, attempt := range []string{"B", "C", "D"} {
		if got := fx.send(ctx, r1, attempt, payPoor); got.Status != http.StatusConflict {
			t.Fatalf("retry %d on replica 1: %s; want 409 (the key stuck)", i+1, show(got))
		}
		time.Sleep(100 * time.Millisecond)
	}
	same := fx.send(ctx, r0, "E", payPoor)
	if same.Status != http.StatusPaymentRequired || !bytes.Equal(same.Body, first.Body) {
		t.Fatalf("retry on the holding connection: %s; want the 402 replayed", show(same))
	}
	if again := lockHolder(ctx, t, fx.db); again != holder {
		t.Fatalf("lock holder %v after the replay, was %v: want still held by the same session", again, holder)
	}
	if err := pool0.Close(); err != nil { // replica 0 restarts: its session ends
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for lockHolder(ctx, t, fx.db).Valid && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the server ends the session when it reads the close
	}
	if got := fx.send(ctx, r1, "F", payPoor); got.Status != http.StatusPaymentRequired || !bytes.Equal(got.Body, first.Body) {
		t.Fatalf("retry after replica 0's connection closed: %s; want the 402 replayed", show(got))
	}
	if n := fx.charges(ctx); n != 0 {
		t.Fatalf("%d charges, want none", n)
	}
	t.Logf("the key's lock stayed with connection %d after the 402", holder.Int64)
}

// TestGetLockReleasesAfterSuccess: on the success path the lock is
// released: a retry on another replica replays the 201.
func TestGetLockReleasesAfterSuccess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewGetLock)
	first := fx.send(ctx, fx.replica(fx.pool(1)), "A", pay)
	again := fx.send(ctx, fx.replica(fx.pool(1)), "B", pay)
	if first.Status != http.StatusCreated || !bytes.Equal(again.Body, first.Body) || !again.Replayed || lockHolder(ctx, t, fx.db).Valid {
		t.Fatalf("first %s, retry %s; want the 201 replayed and the lock free", show(first), show(again))
	}
	if n := fx.charges(ctx); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
}

// lockHolder is the connection id holding theKey's GET_LOCK (NULL: free).
func lockHolder(ctx context.Context, t *testing.T, db *sql.DB) sql.NullInt64 {
	t.Helper()
	var id sql.NullInt64
	err := db.QueryRowContext(ctx, "SELECT IS_USED_LOCK(SHA2(CONCAT(DATABASE(), '/', ?), 224))", theKey).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func conn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// mustExec runs a statement and returns the rows it affected.
func mustExec(t *testing.T, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, stmt string) int64 {
	t.Helper()
	res, err := q.ExecContext(context.Background(), stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
