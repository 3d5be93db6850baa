package narrate

import (
	"math"
	"sort"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// opStory is one logical operation of the story: a client with its tries.
type opStory struct {
	id      int
	letter  string       // "" for a probe
	probe   bool         // an op beyond the plan: a replay probe or the stuck-key probe
	replay  bool         // a replay probe, sent once the traffic was over
	replayN int          // its number among the story's replay probes; 0: the only one
	plan    *workload.Op // nil for a probe
	key     string
	account string
	amount  int64
	units   []*unit
}

// unit is one request as the story tells it: a try that reached failpoints,
// or a run of consecutive tries that all got the same plain answer (409 while
// a key is in flight, say), told once whatever their number.
type unit struct {
	op     *opStory
	n      int // 1-based among the op's units
	rank   int // position in the story's unit order
	tries  []history.Attempt
	events []scenarios.Event // the failpoints of a single try, in arrival order
	steps  []*step
}

// first and last are the unit's first and last tries.
func (u *unit) first() history.Attempt { return u.tries[0] }
func (u *unit) last() history.Attempt  { return u.tries[len(u.tries)-1] }

// collapsed reports a unit that may stand for several tries.
func (u *unit) collapsed() bool { return len(u.events) == 0 && !u.first().Hidden }

// buildOps makes the story's ops, in letter order, each with its units.
func buildOps(rec scenarios.Record, key string, ids []int) []*opStory {
	trace := traceByAttempt(rec.Obs.Trace)
	var ops []*opStory
	for _, id := range ids {
		o := newOp(rec, id, key)
		o.units = buildUnits(o, attemptsOf(rec.Obs.History, id, key), trace)
		if len(o.units) > 0 { // an op that never ran has nothing to tell
			ops = append(ops, o)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return opRank(ops[i]).less(opRank(ops[j])) })
	n, replays := 0, 0
	for _, o := range ops {
		switch {
		case !o.probe:
			o.letter = letter(n)
			n++
		case o.replay:
			replays++
			o.replayN = replays
		}
	}
	if replays == 1 {
		for _, o := range ops {
			o.replayN = 0
		}
	}
	return ops
}

func newOp(rec scenarios.Record, id int, key string) *opStory {
	o := &opStory{id: id, key: key, probe: id >= len(rec.Plan.Ops)}
	if !o.probe {
		o.plan = &rec.Plan.Ops[id]
		o.account, o.amount = o.plan.Account, o.plan.Amount
		return o
	}
	for _, a := range rec.Obs.History.Attempts {
		if a.Op == id {
			o.account, o.amount, o.replay = a.Account, a.Amount, a.ReplayProbe
			break
		}
	}
	return o
}

// traceByAttempt groups the trace by attempt id, in arrival order.
func traceByAttempt(trace []scenarios.Event) map[string][]scenarios.Event {
	sorted := append([]scenarios.Event(nil), trace...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Seq < sorted[j].Seq })
	out := map[string][]scenarios.Event{}
	for _, e := range sorted {
		out[e.Attempt] = append(out[e.Attempt], e)
	}
	return out
}

// buildUnits orders an op's tries and folds runs of plain answers.
func buildUnits(o *opStory, tries []history.Attempt, trace map[string][]scenarios.Event) []*unit {
	sort.SliceStable(tries, func(i, j int) bool {
		a, b := tries[i], tries[j]
		if a.Try != b.Try {
			return a.Try < b.Try
		}
		return !a.Hidden && b.Hidden
	})
	var units []*unit
	for _, a := range tries {
		var events []scenarios.Event
		if !a.Hidden {
			events = trace[a.ID]
		}
		if n := len(units); n > 0 && len(events) == 0 && !a.Hidden && units[n-1].collapsed() &&
			signatureOf(units[n-1].last()) == signatureOf(a) {
			units[n-1].tries = append(units[n-1].tries, a)
			continue
		}
		units = append(units, &unit{op: o, n: len(units) + 1, tries: []history.Attempt{a}, events: events})
	}
	return units
}

// signature is what two tries must share to be told as one.
type signature struct {
	reached                 bool
	server, client, replica int
	replayed                bool
	outcome                 history.Outcome
	fault                   string
}

func signatureOf(a history.Attempt) signature {
	s := signature{client: a.Status, replica: a.Replica, outcome: a.Outcome, fault: a.Fault}
	if a.Server != nil {
		s.reached, s.server, s.replayed = true, a.Server.Status, a.Server.Replayed
	}
	return s
}

// rank orders the ops of a story: stage by stage, the first to reach a
// failpoint is A (with a gate, the one it held), then the others that
// reached one, then those that never did by their first arrival; then the
// replay probes, the stuck-key probe last.
type rank struct {
	kind        int // 0 a plan op, 1 a replay probe, 2 the stuck-key probe
	stage       int // a plan op's stage: the ops of an earlier stage first
	seq         int
	start, call time.Duration
	id          int
}

func (a rank) less(b rank) bool {
	switch {
	case a.kind != b.kind:
		return a.kind < b.kind
	case a.stage != b.stage:
		return a.stage < b.stage
	case a.seq != b.seq:
		return a.seq < b.seq
	case a.start != b.start:
		return a.start < b.start
	case a.call != b.call:
		return a.call < b.call
	}
	return a.id < b.id
}

func opRank(o *opStory) rank {
	r := rank{seq: math.MaxInt, start: math.MaxInt64, call: math.MaxInt64, id: o.id}
	switch {
	case o.replay:
		r.kind = 1
	case o.probe:
		r.kind = 2
	default:
		r.stage = o.plan.Stage
	}
	for _, u := range o.units {
		for _, e := range u.events {
			r.seq = min(r.seq, e.Seq)
		}
		for _, a := range u.tries {
			r.call = min(r.call, a.Call)
			if a.Server != nil {
				r.start = min(r.start, a.Server.Start)
			}
		}
	}
	if r.seq != math.MaxInt { // arrival at a failpoint decides; times only break ties among the rest
		r.start, r.call = 0, 0
	}
	return r
}
