package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// lagObservation: key k charged by o0-t1 (on the server 10-20ms), retried
// by o0-t2 (on the server from 200ms), the standby showing the charge at
// seen (0: never).
func lagObservation(seen time.Duration) Observation {
	var o Observation
	o.Ledger.Charges = []history.Charge{{ID: "ch_1", Key: "k", AttemptID: "o0-t1", Seq: 1}}
	o.History.Attempts = []history.Attempt{
		{ID: "o0-t1", Key: "k", Try: 1, Server: &history.ServerView{Start: 10 * time.Millisecond, End: 20 * time.Millisecond}},
		{ID: "o0-t2", Key: "k", Try: 2, Server: &history.ServerView{Start: 200 * time.Millisecond, End: 210 * time.Millisecond}},
	}
	o.Replication = &Replication{}
	if seen > 0 {
		o.Replication.StandbySeen = map[string]time.Duration{"k": seen}
	}
	return o
}

func TestAssumeStandbyBehind(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Observation
		ok   bool
	}{
		{"standby showed the charge after the retry came", lagObservation(500 * time.Millisecond), true},
		{"standby never showed it during the traffic", lagObservation(0), true},
		{"standby had it before the retry came", lagObservation(150 * time.Millisecond), false},
		{"single server", func() Observation { o := lagObservation(0); o.Replication = nil; return o }(), false},
		{"no retry after the charge", func() Observation {
			o := lagObservation(0)
			o.History.Attempts = o.History.Attempts[:1]
			return o
		}(), false},
		{"only a replay probe after the charge, once the standby was healed", func() Observation {
			o := lagObservation(0)
			o.History.Attempts[1].ReplayProbe = true
			return o
		}(), false},
	} {
		if got := assumeStandbyBehind(c.o); (len(got) == 0) != c.ok {
			t.Errorf("%s: assumption failures %q; want ok=%v", c.name, got, c.ok)
		}
	}
}

func TestAssumeCrashLost(t *testing.T) {
	for _, c := range []struct {
		r    *Replication
		want string // "" = holds
	}{
		{&Replication{Crashes: 1, CanariesLost: 1}, ""},
		{nil, "not on the replicated Postgres"},
		{&Replication{}, "never crashed"},
		{&Replication{Crashes: 1}, "lost no asynchronous commit"},
		{&Replication{Crashes: 1, CanariesLost: 1, DurableLost: 1}, "synchronous commit"},
	} {
		got := strings.Join(assumeCrashLost(Observation{Replication: c.r}), "; ")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q; want %q", c.r, got, c.want)
		}
	}
}

// TestReplicatedPlans: the crash is placed once, after a commit, on an op
// the seed picks; the lag is on every op's first try, whose response is
// dropped, by an amount the seed picks, far longer than the client waits.
func TestReplicatedPlans(t *testing.T) {
	crashAt, lags := map[int]bool{}, map[time.Duration]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		var crashes []workload.Fault
		for _, f := range planAsyncCrash(workload.Seeded(seed, "plan"), Params{Replicas: 1}).Faults() {
			in, err := f.Inject, f.Inject.Validate()
			if err != nil || in.Action != api.PGCrash || in.Point != api.AfterCommit || f.Try != 1 {
				t.Fatalf("seed %d: crash plan fault %+v (%v)", seed, f, err)
			}
			crashes = append(crashes, f)
		}
		if len(crashes) != 1 {
			t.Fatalf("seed %d: %d crashes; want 1", seed, len(crashes))
		}
		crashAt[crashes[0].Op] = true
		plan := planStandbyLag(workload.Seeded(seed, "plan"), Params{Replicas: 1})
		for _, op := range plan.Ops {
			in, err := op.Tries[0].Inject, op.Tries[0].Inject.Validate()
			if err != nil || in.Action != api.StandbyLag || op.Tries[0].Fault != workload.DropResponse || op.MaxTries < 2 {
				t.Fatalf("seed %d op %d: first try %+v (%v)", seed, op.ID, op.Tries[0], err)
			}
			lags[in.Arg] = true
			sc, _ := Lookup("pg-standby-lag")
			if in.Arg < 3*(sc.Policy.PerTry+sc.Policy.MaxBackoff) {
				t.Errorf("seed %d: lag %s does not outlast the retry", seed, in.Arg)
			}
		}
	}
	if len(crashAt) < 2 || len(lags) < 2 {
		t.Errorf("the seed picks nothing: crash ops %v, lags %v", crashAt, lags)
	}
}
