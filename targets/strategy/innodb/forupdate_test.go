package innodb_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// TestSelectForUpdateDeadlocksDuplicates: innodb-select-for-update's A
// finds the key absent with SELECT ... FOR UPDATE (locking the gap) and is
// paused; B, the same key, finds the gap free too (gap locks do not
// conflict), charges, and its INSERT of the key waits on A's gap lock; A,
// resumed, waits on the account B debited: a deadlock, one of the two
// answered 503, a 5xx for a concurrent duplicate. One charge.
func TestSelectForUpdateDeadlocksDuplicates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewSelectForUpdate)
	st := fx.replica()
	h := newHold(fx.deps.Failpoints, "A", api.AfterCheck)
	defer h.free()
	aDone := fx.goSend(ctx, st, "A", pay)
	h.await(t)
	bDone := fx.goSend(ctx, st, "B", pay)
	fx.awaitLockWaits(ctx, 1) // B's INSERT, on A's gap lock
	if len(bDone) > 0 {
		t.Fatal("B answered while A held the gap")
	}
	h.free()
	deadlocked(t, wait(t, aDone, "A"), wait(t, bDone, "B"))
	if n := fx.charges(ctx); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
}

// TestSelectForUpdateHoldsAnotherKey: the gap a missing key's locking read
// locks is shared by the keys around it (on an empty key table, every
// key): a request for another key is held on it, then deadlocks with the
// first.
func TestSelectForUpdateHoldsAnotherKey(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewSelectForUpdate)
	st := fx.replica()
	h := newHold(fx.deps.Failpoints, "A", api.AfterCheck)
	defer h.free()
	aDone := fx.goSend(ctx, st, "A", pay)
	h.await(t)
	bDone := make(chan strategy.Response, 1)
	go func() { bDone <- st.Handle(ctx, request("another-key", "B")) }()
	fx.awaitLockWaits(ctx, 1)
	if b, answered := within(bDone, inFlightBudget); answered {
		t.Fatalf("B, another key, answered %s while A held the gap: not held", show(b))
	}
	h.free()
	deadlocked(t, wait(t, aDone, "A"), wait(t, bDone, "B"))
}

// deadlocked checks that of a and b one charged and the other was killed
// as a deadlock victim (503).
func deadlocked(t *testing.T, a, b strategy.Response) {
	t.Helper()
	if a.Status == http.StatusCreated {
		a, b = b, a
	}
	if b.Status != http.StatusCreated || a.Status != http.StatusServiceUnavailable || !strings.Contains(string(a.Body), "Deadlock") {
		t.Fatalf("answers %s and %s; want one 201 and one deadlock victim (503)", show(a), show(b))
	}
	t.Logf("the deadlock victim got %s", show(a))
}
