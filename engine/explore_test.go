package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/check"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/api"
)

// TestExploreBuiltin: every order of two same-key requests, each held at
// every point it reaches: pg-tx holds in all of them; redis-getset's
// check-then-act double-charges in some, and the shortest such order
// replays to a double charge every time.
func TestExploreBuiltin(t *testing.T) {
	ctx := context.Background()
	dup, _ := explore.ParseCase("duplicate")
	// pg-tx's claim is NOWAIT: its requests never wait on each other, and
	// a generous bound costs nothing; the measured one (250 ms) took a
	// loaded make test's stall of a step for a wait, and one order of 14
	// varied across its re-runs. TestExploreCatalog explores with the
	// measured bound.
	spec := engine.ExploreSpec{Cases: []explore.Case{dup}, Requests: 2, Preemptions: -1, Workers: 2, Profile: api.IETF, Seed: 1, Recheck: 3,
		Bound: 2 * time.Second}
	r := newRunner(t)
	all, err := r.Explore(ctx, "pg-tx", spec)
	if err != nil {
		t.Fatal(err)
	}
	res := all[0]
	t.Logf("%s (%s, bound %s: %s)", res.Sentence(), res.Took, res.Bound, res.BoundHow)
	if len(res.Runs) < 2 || res.Holding() != len(res.Runs) || len(res.Errors) > 0 {
		t.Errorf("pg-tx: %s; errors %v", res.Sentence(), res.Errors)
		logBroken(t, res)
	}
	spec.Bound = 100 * time.Millisecond // its waits are on the account's row lock, released at once: no need to wait long
	all, err = r.Explore(ctx, "redis-getset", spec)
	if err != nil {
		t.Fatal(err)
	}
	res = all[0]
	t.Logf("%s (%s)", res.Sentence(), res.Took)
	failing := res.Failing()
	if len(failing) == 0 || failing[0].Class != "double_charge" {
		t.Fatalf("redis-getset: %s", res.Sentence())
	}
	shortest := failing[0]
	t.Logf("the shortest, %s:\n%s", shortest.Order, shortest.Columns(2))
	spec.Order, spec.Repeat = shortest.Order, 3
	again, err := r.Explore(ctx, "redis-getset", spec)
	if err != nil {
		t.Fatal(err)
	}
	if runs := again[0].Runs; len(runs) != 1 || runs[0].Class != "double_charge" || len(runs[0].Varied) > 0 {
		t.Errorf("the replay of %s: %s", shortest.Order, again[0].Sentence())
	}
}

// TestExploreEveryCase: pg-tx holds in every order of every case, each
// fault at every point its request passes (lost replies, its SQL link
// cut); redis-setnx, whose completed answer goes to Redis after the
// commit, desyncs its stores when its Redis link is cut at any point, and
// has no case of a Redis cut against pg-tx, which never uses Redis.
func TestExploreEveryCase(t *testing.T) {
	ctx := context.Background()
	var cases []explore.Case
	for _, name := range explore.KindNames() {
		c, err := explore.ParseCase(name)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	// Neither design's request ever waits on another (pg-tx's claim is
	// NOWAIT, redis-setnx's a SET NX): a generous bound costs nothing,
	// and a loaded machine's stall of a step (load 20: 500 ms and more)
	// is not taken for a wait.
	spec := engine.ExploreSpec{Cases: cases, Requests: 2, Preemptions: -1, Workers: 2, Profile: api.IETF, Seed: 1, Recheck: 2,
		Bound: 2 * time.Second}
	r := newRunner(t)
	res, err := r.Explore(ctx, "pg-tx", spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(explore.Summary(res))
	seen := map[string]bool{}
	for _, c := range res {
		kind, _, _ := strings.Cut(c.Case, "@")
		seen[kind] = true
		if c.Holding() != len(c.Runs) || len(c.Runs) == 0 || len(c.Errors) > 0 {
			t.Errorf("pg-tx: %s", c.Sentence())
			logBroken(t, c)
		}
	}
	if !seen["lost-reply"] || !seen["pg-cut"] || seen["redis-cut"] {
		t.Errorf("pg-tx explored %v; want lost replies and SQL cuts, no Redis cut", seen)
	}
	three := spec
	three.Cases, three.Requests, three.Preemptions = cases[:1], 3, 2
	res, err = r.Explore(ctx, "pg-tx", three)
	if err != nil {
		t.Fatal(err)
	}
	if c := res[0]; len(c.Runs) <= 14 || c.Holding() != len(c.Runs) || !strings.Contains(c.Sentence(), "3 requests, every order with at most 2 preemptions") {
		t.Errorf("pg-tx, three duplicates: %s", c.Sentence())
		logBroken(t, c)
	}
	res, err = r.Explore(ctx, "redis-setnx", spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(explore.Summary(res))
	desync := 0
	for _, c := range res {
		if strings.HasPrefix(c.Case, "redis-cut@") {
			if f := c.Failing(); len(f) > 0 && slices.Contains(f[0].Outcome.Anomalies, check.StoreDesync) {
				desync++
			}
		}
	}
	if desync == 0 {
		t.Errorf("redis-setnx: no Redis cut desynced its stores: %s", explore.Summary(res))
	}
}

// TestExploreKill: a process killed at a point takes its memory and its
// store connections with it. memory's record of a committed charge dies
// with its process, and the retry, on the process that replaced it,
// charges again; pg-tx, whose record commits with the charge, holds at
// every point, its killed request answered nothing and its retry answered
// by the other process.
func TestExploreKill(t *testing.T) {
	ctx := context.Background()
	kill, err := explore.ParseCase("kill")
	if err != nil {
		t.Fatal(err)
	}
	spec := engine.ExploreSpec{Cases: []explore.Case{kill}, Requests: 2, Preemptions: -1, Workers: 2, Profile: api.IETF, Seed: 1, Recheck: 1}
	r := newRunner(t)
	res, err := r.Explore(ctx, "pg-tx", spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(explore.Summary(res))
	if len(res) < 4 {
		t.Fatalf("pg-tx: %d kill cases; want one per point it passes", len(res))
	}
	for _, c := range res {
		if len(c.Runs) != 1 || c.Holding() != 1 {
			t.Errorf("pg-tx: %s", c.Sentence())
			continue
		}
		a, b := c.Runs[0].Attempts[0], c.Runs[0].Attempts[1]
		if a.Status != 0 || !strings.Contains(a.Err, "its process was killed as the request reached "+strings.TrimPrefix(c.Case, "kill@")) ||
			b.Status < 200 || b.Status >= 300 {
			t.Errorf("%s: A %d (%s), B %d; want A killed unanswered, B answered", c.Case, a.Status, a.Err, b.Status)
		}
	}
	at, err := explore.ParseCase("kill@after-commit")
	if err != nil {
		t.Fatal(err)
	}
	spec.Cases = []explore.Case{at}
	res, err = r.Explore(ctx, "memory", spec)
	if err != nil {
		t.Fatal(err)
	}
	if f := res[0].Failing(); len(f) != 1 || f[0].Class != string(check.DoubleCharge) {
		t.Errorf("memory, killed after the commit: %s", res[0].Sentence())
	}
}

// logBroken logs the evidence of every order of res that did not hold:
// its class, the classes its re-runs gave, each execution's steps and
// answers.
func logBroken(t *testing.T, res explore.Result) {
	t.Helper()
	for _, run := range res.Runs {
		if run.Outcome.Holds() && len(run.Varied) == 0 {
			continue
		}
		t.Logf("%s: %s, varied %v: %s", run.Order, run.Class, run.Varied, run.Outcome.Detail)
		for i, ex := range append([]explore.Execution{run.Execution}, run.Reruns...) {
			t.Logf("  execution %d: steps %+v stalled %q", i, ex.Steps, ex.Stalled)
			for _, a := range ex.Attempts {
				t.Logf("    %s %d %s %q charge %s, %s to %s", a.ID, a.Status, a.Outcome, a.Err, a.ChargeID, a.Call, a.Return)
			}
		}
	}
}

// TestCutHealEndsTheCutTransaction: a pg-cut case's heal returns only once
// Postgres has rolled back what the cut session had open, even when the
// server notices the cut late (its session busy for a second): the next
// request of the order never meets the cut request's claim still held.
func TestCutHealEndsTheCutTransaction(t *testing.T) {
	r := newRunner(t)
	open, err := r.OpenAfterCutHeal(context.Background(), "pg-tx", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d transactions open once the cut was healed; want none", open)
	}
}
