package shrink

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/scenarios/check"
	"github.com/idemchaos/idemchaos/scenarios/spec"
)

// TestStartFailsTwiceOnAFlakyStart: a start that failed and then once did
// not gets a second round of K; one that failed on no run of the first
// round gets none, and one that fails some runs of each round is told so.
func TestStartFailsTwiceOnAFlakyStart(t *testing.T) {
	cases := []struct {
		name   string
		script string // one letter a run: F failed with the anomaly, P did not
		runs   int
		err    string
	}{
		{"every run fails", "FFF", 3, ""},
		{"a busy machine once", "FFPFFF", 6, ""},
		{"never", "P", 1, "has no place in a file"},
		{"some runs of each round", "FPFFP", 5, "some runs and not on others, twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Outcome{K: 3, Anomaly: check.DoubleCharge}
			s := &search{out: &o}
			next := 0
			s.once = func(context.Context, spec.Spec) (scenarios.Result, scenarios.Record, error) {
				if next >= len(c.script) {
					t.Fatalf("run %d: more runs than the script's %d", next+1, len(c.script))
				}
				res := scenarios.Result{Verdict: scenarios.Pass, Anomalies: map[check.Anomaly]int{}}
				if c.script[next] == 'F' {
					res.Verdict, res.Anomalies[check.DoubleCharge] = scenarios.Fail, 1
				}
				next++
				return res, scenarios.Record{}, nil
			}
			err := s.startFails(context.Background())
			if o.Runs != c.runs || next != len(c.script) {
				t.Errorf("%d runs (%d scripted); want %d", o.Runs, next, c.runs)
			}
			switch {
			case c.err == "" && err != nil:
				t.Errorf("error %v; want none", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v; want one saying %q", err, c.err)
			case c.err == "" && o.Result.Verdict != scenarios.Fail:
				t.Errorf("outcome's result %s; want the last failing run's", o.Result.Verdict)
			}
		})
	}
}

// TestTimingCutsKeepATimeoutOutlasted: a fault's duration that outlasts
// the per-try timeout is halved only as far as the timeout; one within it
// is halved as before.
func TestTimingCutsKeepATimeoutOutlasted(t *testing.T) {
	s := spec.Spec{Retries: spec.Retries{MaxTries: 2, PerTryTimeout: spec.Duration(200 * time.Millisecond)},
		Faults: []spec.Fault{{Kind: "delay", At: "before-commit", Duration: spec.Duration(300 * time.Millisecond)},
			{Kind: "delay", At: "after-check", Duration: spec.Duration(500 * time.Millisecond)},
			{Kind: "delay", At: "after-commit", Duration: spec.Duration(160 * time.Millisecond)}}}
	var got []string
	for _, c := range timingCuts(s) {
		got = append(got, c.what)
	}
	want := []string{"delay@after-check 500ms -> 250ms", "delay@after-commit 160ms -> 80ms"}
	if !slices.Equal(got, want) {
		t.Errorf("timing cuts %q; want %q", got, want)
	}
}
