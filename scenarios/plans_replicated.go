package scenarios

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// standbyPolicy is pg-standby-lag's client. Its per-try timeout is the
// time a first try has to commit before its client gives up and retries
// into a race with it, where the lag plays no part: a loaded machine
// outlasted 250 ms, so four times that.
var standbyPolicy = client.Policy{PerTry: time.Second, Backoff: 20 * time.Millisecond, MaxBackoff: 40 * time.Millisecond}

// standbyLagMin is the least lag planStandbyLag puts on the replication
// link (a seed adds up to 600 ms), chosen from the client's: three times
// the longest a retry can come after its first try was sent (a timeout,
// then the backoff), so that the retry reaches the standby while it is
// behind even when the dropped answer held its connection to the timeout
// and the retry is as slow again to reach its look-up, with as much to
// spare.
var standbyLagMin = 3 * (standbyPolicy.PerTry + standbyPolicy.MaxBackoff)

// planStandbyLag: chained ops whose first try's response is dropped; the
// primary-to-standby link is slow (by an amount drawn from the seed, far
// longer than the client waits to retry) from before the traffic until it
// is over (the fault is placed on every first try's commit, where it
// bites, and armed with the cell), so every retry of a completed key
// comes while the standby is behind.
func planStandbyLag(rng *rand.Rand, p Params) workload.Plan {
	lag := standbyLagMin + time.Duration(rng.IntN(7))*100*time.Millisecond
	return chainedFaults(rng, p, 4, 4, workload.DropResponse, api.Injection{Action: api.StandbyLag, Arg: lag, Point: api.BeforeCommit})
}

// planAsyncCrash: chained ops; the one the seed picks crashes the primary
// right after its commit, before it answers: the restarted primary
// recovers, the request answers, and the replay probes retry every key.
func planAsyncCrash(rng *rand.Rand, p Params) workload.Plan {
	plan := base()
	chain(keyedOps(&plan, rng, 4, 6))
	workload.Route(plan.Ops, rng, p.Replicas)
	plan.Ops[rng.IntN(len(plan.Ops))].Tries[0].Inject = api.Injection{Action: api.PGCrash, Point: api.AfterCommit}
	return plan
}

// assumeStandbyBehind: a retry of a key reached the server after the
// key's first charge had finished and before the standby showed that
// charge: the standby really was behind when a retry could read it. The
// probes sent once the traffic is over do not count: the standby was
// healed and caught up by then, and no longer watched.
func assumeStandbyBehind(o Observation) []string {
	if o.Replication == nil {
		return []string{"the run was not on the replicated Postgres: no standby was watched"}
	}
	first := map[string]history.Charge{}
	for _, c := range o.Ledger.Charges {
		if f, ok := first[c.Key]; c.Key != "" && (!ok || c.Seq < f.Seq) {
			first[c.Key] = c
		}
	}
	ends := map[string]time.Duration{}
	for _, a := range o.History.Attempts {
		if a.Server != nil && first[a.Key].AttemptID == a.ID {
			ends[a.Key] = a.Server.End
		}
	}
	for _, a := range o.History.Attempts {
		end, ok := ends[a.Key]
		if a.Server == nil || !ok || a.Server.Start <= end || a.ReplayProbe || a.HoldProbe {
			continue
		}
		if seen, shown := o.Replication.StandbySeen[a.Key]; !shown || seen > a.Server.Start {
			return nil
		}
	}
	return []string{"no retry of a completed key reached the server while the standby was behind: the lag did not bite"}
}

// assumeCrashLost: the primary crashed, and the crash lost the harness's
// own asynchronous commit made right before the kill while keeping the
// synchronous one made before the request's commit: commits
// acknowledged in that moment really vanished.
func assumeCrashLost(o Observation) []string {
	r := o.Replication
	switch {
	case r == nil:
		return []string{"the run was not on the replicated Postgres: nothing could crash"}
	case r.Crashes == 0:
		return []string{"the primary never crashed: no request reached the crash point"}
	case r.DurableLost > 0:
		return []string{fmt.Sprintf("%d crashes lost a synchronous commit: the topology loses what it acknowledged durably", r.DurableLost)}
	case r.CanariesLost < r.Crashes:
		return []string{fmt.Sprintf("%d of %d crashes lost no asynchronous commit (the WAL writer had written it out): nothing acknowledged could vanish",
			r.Crashes-r.CanariesLost, r.Crashes)}
	}
	return nil
}
