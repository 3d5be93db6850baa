package failpoint_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

func TestNilAndUnarmedSetsNeverFire(t *testing.T) {
	var nilSet *failpoint.Set
	nilSet.Eval(context.Background(), api.AfterCommit, "k", "a", 0)
	nilSet.End("a")
	var s failpoint.Set
	s.Eval(context.Background(), api.AfterCommit, "k", "a", 0)
	if len(s.Fired()) != 0 {
		t.Fatal("an unarmed set fired")
	}
}

func TestActionFiresOnMatchAndHealsAtEnd(t *testing.T) {
	var s failpoint.Set
	healed := 0
	s.Arm("cut", api.AfterCommit, failpoint.Attempt("o1-t1"), func(ctx context.Context, h failpoint.Hit) func() {
		return func() { healed++ }
	})
	ctx := context.Background()
	s.Eval(ctx, api.AfterCommit, "k", "o2-t1", 0)  // another attempt
	s.Eval(ctx, api.BeforeCommit, "k", "o1-t1", 0) // another point
	if s.Fired()["cut"] != 0 {
		t.Fatal("fired on a non-matching hit")
	}
	s.Eval(ctx, api.AfterCommit, "k", "o1-t1", 0)
	if s.Fired()["cut"] != 1 || healed != 0 {
		t.Fatalf("fired %d, healed %d; want 1, 0", s.Fired()["cut"], healed)
	}
	s.End("o1-t1")
	s.End("o1-t1")
	if healed != 1 {
		t.Fatalf("healed %d times; want once, at the request's end", healed)
	}
}

// TestGateForcesTheInterleaving: the first request to reach after-check waits
// until the second reaches after-commit.
func TestGateForcesTheInterleaving(t *testing.T) {
	var s failpoint.Set
	g := &failpoint.Gate{Hold: api.AfterCheck, Until: api.AfterCommit, Timeout: 5 * time.Second}
	g.Arm(&s)
	ctx := context.Background()
	var mu sync.Mutex
	var order []string
	note := func(x string) { mu.Lock(); order = append(order, x); mu.Unlock() }
	done := make(chan struct{})
	go func() {
		s.Eval(ctx, api.AfterCheck, "k", "A", 0)
		note("A passed")
		close(done)
	}()
	waitEngaged(t, g, done, 10*time.Second)
	s.Eval(ctx, api.AfterCheck, "k", "B", 0) // not held: A is
	note("B committed")
	s.Eval(ctx, api.AfterCommit, "k", "B", 0)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("A still held 10s after B reached after-commit; the gate did not open")
	}
	if order[0] != "B committed" || order[1] != "A passed" {
		t.Fatalf("order %v; want B to commit before A passes", order)
	}
	if engaged, opened := g.Stats(); engaged != 1 || opened != 1 {
		t.Fatalf("engaged %d opened %d; want 1 1", engaged, opened)
	}
}

// waitEngaged polls g until it holds a request. It fails the test when the
// held request's goroutine ends first (the gate let it through) or when
// nothing is held within limit.
func waitEngaged(t *testing.T, g *failpoint.Gate, done <-chan struct{}, limit time.Duration) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if engaged, _ := g.Stats(); engaged > 0 {
			return
		}
		select {
		case <-done:
			if engaged, _ := g.Stats(); engaged > 0 {
				return // engaged, then released or timed out: the caller checks
			}
			t.Fatal("A passed after-check but the gate reports no request held")
		case <-deadline.C:
			t.Fatalf("the gate held no request within %v", limit)
		case <-tick.C:
		}
	}
}

// TestGateOpensWhenAnotherIsAnswered: a request of the key answered without
// reaching Until (refused while the first was held) releases the held one;
// the held request's own answer does not.
func TestGateOpensWhenAnotherIsAnswered(t *testing.T) {
	var s failpoint.Set
	g := &failpoint.Gate{Hold: api.AfterCheck, Until: api.AfterCommit, Timeout: time.Minute}
	g.Arm(&s)
	done := make(chan struct{})
	go func() {
		s.Eval(context.Background(), api.AfterCheck, "k", "A", 0)
		close(done)
	}()
	waitEngaged(t, g, done, 10*time.Second)
	g.Finished("k", "A") // its own try, given up by the client
	g.Finished("other", "B")
	select {
	case <-done:
		t.Fatal("A was released by its own answer or another key's")
	case <-time.After(50 * time.Millisecond):
	}
	g.Finished("k", "B")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("A still held 10s after B was answered")
	}
	if engaged, opened := g.Stats(); engaged != 1 || opened != 1 {
		t.Fatalf("engaged %d opened %d; want 1 1", engaged, opened)
	}
}

func TestGateTimesOut(t *testing.T) {
	var s failpoint.Set
	g := &failpoint.Gate{Hold: api.AfterCheck, Until: api.AfterCommit, Timeout: 20 * time.Millisecond}
	g.Arm(&s)
	start := time.Now()
	s.Eval(context.Background(), api.AfterCheck, "k", "A", 0)
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("the gate did not hold")
	}
	if _, opened := g.Stats(); opened != 0 {
		t.Fatal("a timed-out gate counted as opened")
	}
}

// BenchmarkUnarmed shows the cost of a point nobody armed.
func BenchmarkUnarmed(b *testing.B) {
	var s failpoint.Set
	ctx := context.Background()
	for b.Loop() {
		s.Eval(ctx, api.AfterCommit, "k", "a", 0)
	}
}
