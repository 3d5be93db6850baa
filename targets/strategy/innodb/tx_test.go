package innodb_test

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	innoledger "github.com/idemchaos/idemchaos/targets/ledger/innodb"
	"github.com/idemchaos/idemchaos/targets/strategy"
	"github.com/idemchaos/idemchaos/targets/strategy/innodb"
)

// TestTxRefusesInFlightDuplicateAtOnce: while A holds the key (paused
// right after its claim, its transaction open), B with the same key gets
// 409 at once, not held on A's row; A then completes, charged once.
func TestTxRefusesInFlightDuplicateAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewTx)
	st := fx.replica()
	h := newHold(fx.deps.Failpoints, "A", api.AfterClaim)
	defer h.free()
	aDone := fx.goSend(ctx, st, "A", pay)
	h.await(t)
	start := time.Now()
	b, answered := within(fx.goSend(ctx, st, "B", pay), inFlightBudget)
	took := time.Since(start)
	if !answered {
		t.Fatalf("B was held: no answer within %s while A held the key", inFlightBudget)
	}
	if len(aDone) > 0 {
		t.Fatal("A was no longer held when B answered: the case proves nothing")
	}
	h.free()
	a := wait(t, aDone, "A")
	if b.Status != http.StatusConflict {
		t.Fatalf("B, sent while A was in flight: %s after %s; want 409 at once", show(b), took)
	}
	if a.Status != http.StatusCreated {
		t.Fatalf("A: %s", show(a))
	}
	if n := fx.charges(ctx); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
	t.Logf("B answered 409 in %s while A held the key", took.Round(time.Microsecond))
}

// TestTxReplaysByteForByte: a retry of a completed key gets the first
// answer, status and body byte for byte, marked replayed, and charges
// nothing.
func TestTxReplaysByteForByte(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewTx)
	st := fx.replica()
	first := fx.send(ctx, st, "A", pay)
	if first.Status != http.StatusCreated || first.Replayed {
		t.Fatalf("first: %s", show(first))
	}
	for _, attempt := range []string{"B", "C"} {
		again := fx.send(ctx, fx.replica(fx.pool(2)), attempt, pay) // another replica's pool too
		if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || !again.Replayed {
			t.Fatalf("retry %s: %s; want a replay of %s", attempt, show(again), show(first))
		}
	}
	if n := fx.charges(ctx); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
}

// TestTxRefusesChangedPayload: the same key with another amount is
// refused with the profile's status (422 ietf, 400 stripe) and charges
// nothing; the original still replays.
func TestTxRefusesChangedPayload(t *testing.T) {
	for _, p := range []api.Profile{api.IETF, api.Stripe} {
		t.Run(p.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
			defer cancel()
			fx := newFixture(t, innodb.NewTx)
			fx.deps.Profile = p
			st := fx.replica()
			first := fx.send(ctx, st, "A", pay)
			changed := pay
			changed.Amount++
			got := fx.send(ctx, st, "B", changed)
			if got.Status != p.Mismatch {
				t.Fatalf("changed payload: %s; want %d", show(got), p.Mismatch)
			}
			again := fx.send(ctx, st, "C", pay)
			if !bytes.Equal(again.Body, first.Body) || fx.charges(ctx) != 1 {
				t.Fatalf("after the mismatch: %s, %d charges; want the first answer, 1 charge", show(again), fx.charges(ctx))
			}
		})
	}
}

// TestTxStoresRefusal: a declined charge (402) is stored with its key: a
// retry after the account was funded replays the 402 and charges nothing.
func TestTxStoresRefusal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewTx)
	st := fx.replica()
	first := fx.send(ctx, st, "A", payPoor)
	if first.Status != http.StatusPaymentRequired {
		t.Fatalf("first: %s; want 402", show(first))
	}
	if _, err := innoledger.TopUp(ctx, fx.db, poor, 10_000); err != nil {
		t.Fatal(err)
	}
	again := fx.send(ctx, st, "B", payPoor)
	if again.Status != http.StatusPaymentRequired || !bytes.Equal(again.Body, first.Body) || !again.Replayed {
		t.Fatalf("retry after the top-up: %s; want the 402 replayed", show(again))
	}
	if n := fx.charges(ctx); n != 0 {
		t.Fatalf("%d charges, want none", n)
	}
}

// TestTxMissingKey: without a key, ietf refuses (400) and stripe charges
// without idempotency.
func TestTxMissingKey(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewTx)
	r := strategy.Request{AttemptID: "A", Body: pay, Fingerprint: pay.Fingerprint()}
	if got := fx.replica().Handle(ctx, r); got.Status != http.StatusBadRequest {
		t.Fatalf("ietf without a key: %s", show(got))
	}
	fx.deps.Profile = api.Stripe
	if got := fx.replica().Handle(ctx, r); got.Status != http.StatusCreated {
		t.Fatalf("stripe without a key: %s", show(got))
	}
}

// TestTxNeverDoubleChargesConcurrent: N duplicates released together get
// one charge; every answer is the 201 (first or replayed, one body) or a
// 409, and none is held.
func TestTxNeverDoubleChargesConcurrent(t *testing.T) {
	const n, rounds = 12, 5
	ctx, cancel := context.WithTimeout(context.Background(), 2*caseTimeout)
	defer cancel()
	fx := newFixture(t, innodb.NewTx)
	st := fx.replica()
	var body []byte
	for round := range rounds {
		key := "key-c" + string(rune('0'+round))
		start := make(chan struct{})
		answers := make(chan strategy.Response, n)
		took := make(chan time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				t0 := time.Now()
				ctx, cancel := context.WithTimeout(ctx, requestTimeout)
				defer cancel()
				answers <- st.Handle(ctx, strategy.Request{Key: key, AttemptID: key + "-" + string(rune('a'+i)), Body: pay, Fingerprint: pay.Fingerprint()})
				took <- time.Since(t0)
			})
		}
		close(start)
		wg.Wait()
		close(answers)
		close(took)
		body = nil
		for a := range answers {
			switch {
			case a.Status == http.StatusConflict:
			case a.Status == http.StatusCreated && (body == nil || bytes.Equal(a.Body, body)):
				body = a.Body
			default:
				t.Fatalf("round %d: %s", round, show(a))
			}
		}
		for d := range took {
			if d > inFlightBudget {
				t.Fatalf("round %d: an answer took %s: held", round, d)
			}
		}
		snap, err := innoledger.Read(ctx, fx.db)
		if err != nil {
			t.Fatal(err)
		}
		charged := 0
		for _, c := range snap.Charges {
			if c.Key == key {
				charged++
			}
		}
		if charged != 1 || body == nil {
			t.Fatalf("round %d: %d charges for %d duplicates (a 201: %v); want 1", round, charged, n, body != nil)
		}
	}
}

// TestTxMarksAClaimThatCannotWait: innodb-tx records its claim's round
// trip in the request's context, marked as one that cannot wait (the
// server logs it, and the checker judges no hold on it: a duplicate
// answered late there waited elsewhere, for a pooled connection on a
// loaded machine); the blocking claim marks none (its request's span is
// judged).
func TestTxMarksAClaimThatCannotWait(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	for _, c := range []struct {
		name   string
		build  func(strategy.Deps) strategy.Strategy
		marked bool
	}{{"innodb-tx", innodb.NewTx, true}, {"innodb-blocking-claim", innodb.NewBlockingClaim, false}} {
		fx := newFixture(t, c.build)
		var claim strategy.Claimed
		resp := fx.send(strategy.WithClaimed(ctx, &claim), fx.replica(), "A", pay)
		if resp.Status != http.StatusCreated {
			t.Fatalf("%s: %s", c.name, show(resp))
		}
		if marked := !claim.End.IsZero(); marked != c.marked || claim.Waits || claim.End.Before(claim.Start) {
			t.Errorf("%s: claim %+v; want marked %v, never waiting", c.name, claim, c.marked)
		}
	}
}
