package scenariotest

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/api"
)

// Exploration is what Explore ran and proved of one case: every order run
// (Runs, each with its Order, Steps and Outcome), how many held (Holding),
// the orders that broke an invariant every time they ran, shortest first
// (Failing), those whose outcome varied across re-runs (Varying), and the
// sentence that says it all (Sentence).
type Exploration = explore.Result

// exploreRecheck is how many holding orders of a case run again, as
// idemchaos explore's --recheck (every failing one does).
const exploreRecheck = 10

// Explore runs every order of two requests of one key against the target,
// as idemchaos explore does (docs/explore.md): each request held at every
// point its handler calls (At), one released at a time, each order a fresh
// execution on a key of its own, judged against the ledger; every failing
// order, and a sample of the others, run again. cases are explore's
// ("duplicate", the default; "mismatch"; "lost-reply", at every point from
// the charge on, or at one: "lost-reply@after-commit"; the cuts, with the
// store proxies); one Exploration each, a case at every point one per
// point. Target.Failpoints is required: the holds are the points.
func Explore(ctx context.Context, t Target, cases ...string) ([]Exploration, error) {
	if !t.Failpoints {
		return nil, errors.New("scenariotest: Explore holds the target's requests at its points: set Target.Failpoints, with a handler that calls scenariotest.At at each point it passes (docs/failpoints.md)")
	}
	spec, err := t.exploreSpec(cases)
	if err != nil {
		return nil, err
	}
	svc, _, closeAll, err := t.open()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	res, err := svc.Explore(ctx, spec)
	if err != nil {
		return res, fmt.Errorf("scenariotest: explore: %s", words.Replace(err.Error()))
	}
	return res, nil
}

// exploreSpec is the exploration of the named cases: two requests, every
// order, the bound measured, the target's profile and seed.
func (t Target) exploreSpec(cases []string) (engine.ExploreSpec, error) {
	if len(cases) == 0 {
		cases = []string{"duplicate"}
	}
	spec := engine.ExploreSpec{Requests: 2, Preemptions: -1, Recheck: exploreRecheck, Workers: runtime.NumCPU(),
		Profile: t.Profile, Seed: max(t.Seed, 1)}
	if spec.Profile.Name == "" {
		spec.Profile = api.IETF
	}
	for _, name := range cases {
		c, err := explore.ParseCase(name)
		if err != nil {
			return spec, fmt.Errorf("scenariotest: Explore: %w", err)
		}
		spec.Cases = append(spec.Cases, c)
	}
	return spec, nil
}
