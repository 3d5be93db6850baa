package scenarios

import (
	"strings"
	"testing"
)

func coverRes(seed uint64, v Verdict, exercised bool) Result {
	return Result{Strategy: "pg-tx", Scenario: "slow-charge", Seed: seed, Verdict: v, AsExpected: v == Pass,
		Exercise: exCrossedTTL.What, Exercised: exercised}
}

// TestCover: a cell whose passes rest on no exercised seed is inconclusive;
// one exercised seed, a share of the seeds joined later, makes it pass
// again; a scenario without an exercise fact, or a failure, is left as is.
func TestCover(t *testing.T) {
	none := Cover([]Result{coverRes(1, Pass, false), coverRes(2, Pass, false), coverRes(3, Fail, false)})
	for _, r := range none[:2] {
		if r.Verdict != Inconclusive || !r.Unexercised || r.AsExpected || !strings.Contains(r.Assumptions[0], "exercised 0/3") {
			t.Errorf("0/3, seed %d: %+v", r.Seed, r)
		}
	}
	if none[2].Verdict != Fail || none[2].Unexercised {
		t.Errorf("a failure changed: %+v", none[2])
	}
	again := Cover(append(none, coverRes(4, Pass, true)))
	for _, r := range again {
		if r.Seed < 3 && (r.Verdict != Pass || r.Unexercised || len(r.Assumptions) != 0 || !r.AsExpected) {
			t.Errorf("1/4, seed %d: %+v", r.Seed, r)
		}
	}
	if cov := CoverageOf(again); cov.String() != "exercised 1/4" || cov.What != exCrossedTTL.What {
		t.Errorf("coverage %+v", cov)
	}
	plain := Result{Strategy: "pg-tx", Scenario: "x", Verdict: Pass, AsExpected: true}
	if r := Cover([]Result{plain})[0]; r.Verdict != Pass {
		t.Errorf("no exercise fact: %+v", r)
	}
}

// TestCatalogExercises: every scenario of the catalog names what it is
// about; an observation that did nothing exercised none of them.
func TestCatalogExercises(t *testing.T) {
	for _, sc := range Catalog() {
		if sc.Exercise.Seen == nil || sc.Exercise.What == "" {
			t.Errorf("%s has no exercise fact", sc.Name)
			continue
		}
		if _, seen := exercise(sc, Observation{}); seen {
			t.Errorf("%s: an empty run exercised it", sc.Name)
		}
	}
}
