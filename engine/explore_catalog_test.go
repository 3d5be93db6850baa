package engine_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// exploreStrategies is the catalog's strategies the explore test runs:
// a few in make test (a correct design, one caught by a race, one by a
// cut), every one with IDEMCHAOS_EXPLORE_ALL=1 (make test-explore-long).
func exploreStrategies(t *testing.T) []string {
	if os.Getenv("IDEMCHAOS_EXPLORE_ALL") != "" {
		return design.Names()
	}
	return []string{"pg-tx", "pg-split-tx", "redis-sticky", "pg-nofingerprint"}
}

// TestExploreCatalog: every order of every case of each strategy shows
// what its definition declares (design.Info.Explores): the anomalies of
// each kind of case, over its points, and nothing for a kind it does not
// name. A difference fails, both ways.
func TestExploreCatalog(t *testing.T) {
	var cases []explore.Case
	for _, name := range explore.KindNames() {
		c, _ := explore.ParseCase(name)
		cases = append(cases, c)
	}
	for _, st := range exploreStrategies(t) {
		t.Run(st, func(t *testing.T) {
			t.Parallel()
			info, err := design.Lookup(st)
			if err != nil {
				t.Fatal(err)
			}
			spec := engine.ExploreSpec{Cases: cases, Requests: 2, Preemptions: -1, Workers: 2, Profile: api.IETF, Seed: 1, Recheck: 2}
			res, err := newRunner(t).Explore(context.Background(), st, spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(explore.Summary(res))
			got := explore.Shown(res)
			for _, kind := range explore.KindNames() {
				want := slices.Clone(info.Explores[kind])
				slices.Sort(want)
				if !slices.Equal(got[kind], want) {
					t.Errorf("%s: explore shows %v, the catalog declares %v", kind, got[kind], want)
				}
			}
		})
	}
}
