package scenarios

import (
	"testing"

	"github.com/idemchaos/idemchaos/scenarios/check"
)

func TestResultClassAgainstTheCatalog(t *testing.T) {
	dc := map[check.Anomaly]int{check.DoubleCharge: 2}
	cases := []struct {
		r    Result
		want Class
	}{
		{Result{Verdict: Pass, AsExpected: true}, Passed},
		{Result{Verdict: Fail, AsExpected: true, Expected: []check.Anomaly{check.DoubleCharge}, Anomalies: dc}, Caught},
		{Result{Verdict: Fail, Anomalies: dc}, Unexpected},
		{Result{Verdict: Pass, Expected: []check.Anomaly{check.DoubleCharge}}, Missed},
		{Result{Verdict: Inconclusive}, Unproven},
		{Result{Verdict: Inconclusive, AsExpected: true}, Unproven},
	}
	for _, c := range cases {
		if got := c.r.Class(); got != c.want {
			t.Errorf("%+v: %s; want %s", c.r, got, c.want)
		}
	}
	for c, want := range map[Class]bool{Passed: false, Caught: false, Unexpected: true, Missed: true, Unproven: false} {
		if c.NotAsDeclared() != want {
			t.Errorf("%s: not as declared %v", c, c.NotAsDeclared())
		}
	}
}
