package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// timedOut is an observation of n requests none of which got an answer.
func timedOut(n int) scenarios.Observation {
	var obs scenarios.Observation
	for range n {
		obs.History.Attempts = append(obs.History.Attempts, history.Attempt{Key: "k", Outcome: history.Indeterminate, Err: "timeout"})
	}
	return obs
}

// TestNoAnswerFromAServiceThatAnswered: a run with no answer and no
// charge is an environment error (the service is down) only from a
// service that never answered; one that answered earlier runs is judged
// (its assumption says it was too slow), never an error that ends the
// rest of the runs.
func TestNoAnswerFromAServiceThatAnswered(t *testing.T) {
	obs := timedOut(4)
	if err := answered(obs, []string{"http://127.0.0.1:1"}, 0); err == nil || !strings.Contains(err.Error(), "target never answered") {
		t.Errorf("never answered: %v; want the environment error", err)
	}
	if err := answered(obs, []string{"http://127.0.0.1:1"}, 5); err != nil {
		t.Errorf("answered 5 before: %v; want it judged", err)
	}
}

// TestNeverCalledNeedsAnAcceptedCharge: a run that needed the service's
// points and saw none is the protocol's error only when the service
// accepted a charge without calling; one that accepted none (every client
// timed out first) shows nothing of the protocol and is judged.
func TestNeverCalledNeedsAnAcceptedCharge(t *testing.T) {
	sc, err := scenarios.Lookup("client-timeout-retry")
	if err != nil {
		t.Fatal(err)
	}
	plan := workload.Plan{Ops: []workload.Op{{Key: "k", MaxTries: 1, Tries: []workload.Try{{Inject: api.Injection{Action: api.Delay, Arg: time.Second, Point: api.BeforeCommit}}}}}}
	f := &serviceFailpoints{set: &failpoint.Set{}, trace: &tracer{since: func() time.Duration { return 0 }}}
	obs := timedOut(3)
	if err := f.observe(&obs, sc, plan); err != nil {
		t.Errorf("nothing accepted: %v; want it judged", err)
	}
	obs.History.Attempts = append(obs.History.Attempts, history.Attempt{Key: "k", Status: 201, Outcome: history.Acked})
	if err := f.observe(&obs, sc, plan); err == nil || !strings.Contains(err.Error(), "never called the control URL") {
		t.Errorf("a charge accepted, no point: %v; want the protocol's error", err)
	}
}
