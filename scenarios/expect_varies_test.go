package scenarios

import (
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// TestACellThatVariesIsAsDeclaredEitherWay: a cell whose definition
// declares anomalies it shows on some seeds only (Varies) is as declared
// when it passes and when it fails with nothing but those; an anomaly
// outside them, or one it must never show, is not as declared; a cell
// with no Varies still must pass, and a declared flaw must be caught.
func TestACellThatVariesIsAsDeclaredEitherWay(t *testing.T) {
	info := design.Info{Name: "test-varies",
		Fails:      design.Declared{"concurrent-duplicates": {"status_contract"}},
		Varies:     design.Declared{"retry-storm": {"status_contract", "held_duplicate"}},
		NeverShows: design.Declared{"retry-storm": {"double_charge"}}}
	result := func(sc string, v Verdict, as ...check.Anomaly) Result {
		r := Result{Strategy: info.Name, Scenario: sc, Verdict: v, Anomalies: map[check.Anomaly]int{},
			Expected: declared(info.Fails, sc)}
		for _, a := range as {
			r.Anomalies[a]++
		}
		return r
	}
	for _, c := range []struct {
		name string
		r    Result
		want bool
	}{
		{"varies, passed", result("retry-storm", Pass), true},
		{"varies, failed with one of them", result("retry-storm", Fail, check.StatusContract), true},
		{"varies, failed with both", result("retry-storm", Fail, check.StatusContract, check.HeldDuplicate), true},
		{"varies, failed with another", result("retry-storm", Fail, check.StatusContract, check.StuckKey), false},
		{"varies, failed with one it never shows", result("retry-storm", Fail, check.StatusContract, check.DoubleCharge), false},
		{"must pass, failed", result("payload-mismatch", Fail, check.StatusContract), false},
		{"declared, caught", result("concurrent-duplicates", Fail, check.StatusContract), true},
		{"declared, missed", result("concurrent-duplicates", Pass), false},
	} {
		if got := matchesDeclared(c.r, info); got != c.want {
			t.Errorf("%s: as declared %v; want %v", c.name, got, c.want)
		}
	}
	if got := varies(info, "retry-storm"); len(got) != 2 || got[0] != check.HeldDuplicate {
		t.Errorf("varies, sorted: %v", got)
	}
}
