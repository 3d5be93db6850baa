package engine_test

import (
	"context"
	"testing"
	"time"

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
	dup, _ := explore.LookupCase("duplicate")
	spec := engine.ExploreSpec{Case: dup, Requests: 2, Preemptions: -1, Workers: 2, Profile: api.IETF, Seed: 1, Recheck: 3}
	r := newRunner(t)
	res, err := r.Explore(ctx, "pg-tx", spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%s, bound %s: %s)", res.Sentence(), res.Took, res.Bound, res.BoundHow)
	if len(res.Runs) < 2 || res.Holding() != len(res.Runs) || len(res.Errors) > 0 {
		t.Errorf("pg-tx: %s; errors %v", res.Sentence(), res.Errors)
		for _, run := range res.Failing() {
			t.Logf("%s %s: %s\n%s", run.Order, run.Class, run.Outcome.Detail, run.Columns(2))
		}
	}
	spec.Bound = 100 * time.Millisecond // its waits are on the account's row lock, released at once: no need to wait long
	res, err = r.Explore(ctx, "redis-getset", spec)
	if err != nil {
		t.Fatal(err)
	}
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
	if len(again.Runs) != 1 || again.Runs[0].Class != "double_charge" || len(again.Runs[0].Varied) > 0 {
		t.Errorf("the replay of %s: %s", shortest.Order, again.Sentence())
	}
}
