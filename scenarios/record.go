package scenarios

import (
	"time"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// Record is everything a finished cell observed: enough to judge it again,
// offline.
type Record struct {
	Cell Cell          `json:"cell"`
	Plan workload.Plan `json:"-"` // saved apart, before the run
	Obs  Observation   `json:"observation"`
	// Facts are what the target is, as far as judging it goes; nil in a
	// record saved before they were recorded.
	Facts  *Facts        `json:"facts,omitempty"`
	Hidden int           `json:"hidden_attempts"`
	Took   time.Duration `json:"took_ns"`
}

// Observation is what a run saw, for its self-checks.
type Observation struct {
	History history.History `json:"-"` // saved apart, as history.jsonl
	Ledger  history.Ledger  `json:"-"` // saved apart, as ledger.json
	// Injected counts the faults fired inside the target.
	Injected int `json:"injected"`
	// Cuts are the store proxies cut on a user's service, one per fired
	// cut, with what of its traffic met each; nil for a built-in target.
	Cuts []StoreCut `json:"cuts,omitempty"`
	// GateHeld counts the requests a gate held.
	GateHeld int `json:"gate_held"`
	// Trace lists the failpoints requests passed, in the order they got there.
	Trace []Event `json:"trace,omitempty"`
	// TopUps are the plan's top-ups as they were paid, in plan order.
	TopUps []TopUpDone `json:"top_ups,omitempty"`
	// Settled is how long after the last request the ledger stopped
	// changing (a user's service); Unsettled says it still moved at the
	// bound, so late charges may be missing from the ground truth.
	Settled   time.Duration `json:"settled_ns,omitempty"`
	Unsettled bool          `json:"unsettled,omitempty"`
	// Replication is what a run on the replicated Postgres saw of its
	// standby and its crashes; nil on a single server.
	Replication *Replication `json:"replication,omitempty"`
	// Failover is what the store events did (a replicated Redis); nil
	// for a run without them.
	Failover *FailoverSeen `json:"failover,omitempty"`
}

// Replication is what the harness saw of the replicated Postgres during a
// run, to prove its faults bit.
type Replication struct {
	// StandbySeen is when each key's first charge showed on the hot
	// standby (since the run's start), polled during the traffic; a key
	// the standby never showed by then is absent.
	StandbySeen map[string]time.Duration `json:"standby_seen_ns,omitempty"`
	// Crashes counts the primary's crashes; CanariesLost those after
	// which the harness's own canary, an asynchronous commit made right
	// before the kill, was gone from the restarted primary; DurableLost
	// those after which the synchronous commit it made right before the
	// fault's request committed was gone too (that would be a broken
	// topology, not the fault).
	Crashes      int `json:"crashes,omitempty"`
	CanariesLost int `json:"canaries_lost,omitempty"`
	DurableLost  int `json:"durable_lost,omitempty"`
}

// Event is a request reaching a failpoint inside the target.
type Event struct {
	Seq     int           `json:"seq"`
	Point   string        `json:"point"`
	Attempt string        `json:"attempt"`
	Key     string        `json:"key,omitempty"`
	Replica int           `json:"replica"`
	At      time.Duration `json:"at_ns"`
	// Left is when the request went on from the point: what a gate or a
	// delay of the harness held it there is Left - At (zero: not
	// recorded, as in runs saved before it was).
	Left time.Duration `json:"left_ns,omitempty"`
}

// Facts are what the harness knows of a target that judging needs,
// recorded when the cell runs: a built-in strategy's from its design, a
// user's service's from what the user declared.
type Facts struct {
	// TwoStores: idempotency records in Redis beside the Postgres ledger,
	// which can disagree (store_desync is checked).
	TwoStores bool `json:"two_stores"`
	// ReplayFrom is where a completed key's answer is replayed from.
	ReplayFrom string `json:"replay_from,omitempty"`
}

// FactsOf are the facts of a built-in strategy's design.
func FactsOf(info design.Info) Facts {
	return Facts{TwoStores: info.Redis, ReplayFrom: info.ReplayFrom}
}

// facts are the record's facts; a record saved before they were recorded
// gets those of the built-in strategy it names (a user's service's: none).
func (r Record) facts() Facts {
	if r.Facts != nil {
		return *r.Facts
	}
	return r.Cell.under().facts(r.Cell.Strategy)
}
