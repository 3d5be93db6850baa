package services

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
)

// TestPowerSpendsTheBudget: against a correct service, concurrent-
// duplicates with the default flags does not stop at its floor (a race
// hit by 1 % of overlaps ruled out): it sends rounds until it rules out
// one hit by 0.1 %, or until its budget is spent, and says what it
// reached and how its duplicates were placed across the charge; whether
// the service charges in a few milliseconds or in 150 ms (docs/
// own-service.md has the times).
func TestPowerSpendsTheBudget(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"2ms-4ms", "150ms-150ms"} {
		s := start(t, "accountlock", "--provider", provider)
		v := s.judge(t, "concurrent-duplicates", seeds(t))
		if v.code != exitPass {
			t.Errorf("%s: exit %d, want %d\n%s", provider, v.code, exitPass, v.stderr)
		}
		v.expect(t, "concurrent-duplicates", "pass", "")
		for _, r := range v.doc.Results {
			p, took := r.Power, time.Duration(r.DurationMS)*time.Millisecond
			if p == nil || p.Target != scenarios.DefaultPowerTarget || p.Aim != scenarios.DefaultPowerAim ||
				p.Overlaps < p.Aim && took < scenarios.DefaultPowerBudget {
				t.Errorf("%s seed %d: power %+v after %s; want the rounds gone on to the aim, or for the whole budget (%s)",
					provider, r.Seed, p, took, scenarios.DefaultPowerBudget)
				continue
			}
			notes := strings.Join(r.Adapted, "\n")
			want := fmt.Sprintf("seed %d: no double charge in %d overlapping same-key pairs over %d rounds: a race hit by more than", r.Seed, p.Overlaps, p.Rounds)
			if !strings.Contains(notes, want) || !strings.Contains(notes, "duplicates placed across their first request's measured") {
				t.Errorf("%s seed %d: the notes %q; want %q and how the duplicates were placed", provider, r.Seed, notes, want)
			}
		}
	}
}

// TestPowerCatchesCheckThenSet: a Redis claim that is a GET then a SET
// without NX, behind middlewares that take 0 to 30 ms: duplicates sent
// together reach the look-up apart, and meet in the window between
// look-up and mark (well under a millisecond) about 1.4 times in a hundred
// overlaps. A run that stopped at its floor (300 overlaps in 2 rounds,
// under a second) passed it on 2 seeds of 20; with the default flags the
// rounds go on and catch the double charge on every seed (make
// test-services-long: 20).
func TestPowerCatchesCheckThenSet(t *testing.T) {
	t.Parallel()
	s := start(t, "checkthenset", "--provider", "2ms-4ms", "--middleware", "0s-30ms")
	v := s.judge(t, "concurrent-duplicates", seeds(t))
	if v.code != exitViolated {
		t.Errorf("exit %d, want %d\n%s", v.code, exitViolated, v.stderr)
	}
	v.expect(t, "concurrent-duplicates", "fail", "double_charge", "replay_mismatch", "lost_ack", "held_duplicate")
}
