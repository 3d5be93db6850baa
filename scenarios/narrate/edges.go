package narrate

import (
	"sort"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// link adds the edges between units that the observed data proves: retry
// order, plan order and stages, real-time order of requests that did not
// overlap, the gate, replays and commit order, and answers that saw a key
// in flight.
func (s *story) link() {
	for _, x := range s.units {
		for _, y := range s.units {
			if x != y {
				s.linkOrder(x, y)
				s.linkStages(x, y)
			}
		}
	}
	s.linkGate()
	s.linkCharges()
	s.linkStore()
	s.linkStandby()
	s.linkHeld()
	for _, x := range s.units {
		if x.answeredInFlight(s.profile) {
			s.linkInFlight(x)
		}
	}
}

// linkOrder makes unit x start after unit y where that is certain.
func (s *story) linkOrder(x, y *unit) {
	send := x.steps[0]
	switch {
	case x.op == y.op && y.n == x.n-1:
		send.after(y.final())
	case x.op.probe && !y.op.probe:
		send.after(y.final())
	case x.op.probe && !x.op.replay && y.op.replay: // the stuck-key probe waits out the replay probes
		send.after(y.final())
	case x.op.replay && y.op.replay && y.op.id < x.op.id && x.n == 1 && y == y.op.units[len(y.op.units)-1]:
		send.after(y.final()) // a key's replay probes go one after another
	case x.n == 1 && x.op.plan != nil && x.op.plan.After == y.op.id && y == y.op.units[len(y.op.units)-1]:
		send.after(y.final())
	}
	ans := y.find(answerStep, "")
	if ans == nil || y.last().Server == nil {
		return
	}
	end := y.last().Server.End
	switch first := x.first(); {
	case end < first.Call:
		send.after(ans)
	case first.Server != nil && end < first.Server.Start:
		x.firstServer().after(ans)
	}
}

// linkCharges: a replay comes after the commit it replays, and commits are
// told in the order the ledger numbered them.
func (s *story) linkCharges() {
	var commits []*step
	for _, c := range s.charges {
		if p := s.producer(c.AttemptID); p != nil {
			commits = append(commits, p)
		}
	}
	for i := 1; i < len(commits); i++ {
		commits[i].after(commits[i-1])
	}
	for _, u := range s.units {
		srv := u.first().Server
		if srv == nil || srv.ChargeID == "" {
			continue
		}
		if p := s.producer(s.chargeAttempt[srv.ChargeID]); p != nil && p.u != u {
			u.find(answerStep, "").after(p)
		}
	}
}

// producer is the step where the attempt's charge was committed: its
// after-commit point, else its answer.
func (s *story) producer(attemptID string) *step {
	for _, u := range s.units {
		for _, a := range u.tries {
			if a.ID != attemptID {
				continue
			}
			if p := u.find(pointStep, "after-commit"); p != nil {
				return p
			}
			return u.find(answerStep, "")
		}
	}
	return nil
}

// answeredInFlight reports a unit whose answer was an in-flight refusal
// of profile p.
func (u *unit) answeredInFlight(p api.Profile) bool {
	srv := u.first().Server
	return srv != nil && p.IsInFlight(srv.Status) && !srv.Replayed && len(u.events) == 0
}

// linkInFlight: a 409 came while another request of the key was on the
// server; it is told after that request's claim and before its commit (or
// its answer), wherever the clocks put its other steps.
func (s *story) linkInFlight(x *unit) {
	ans := x.find(answerStep, "")
	t := ans.at
	for _, y := range s.units {
		if y == x || !y.busyAt(t) {
			continue
		}
		before := y.claim()
		if before == nil {
			before, _ = y.around(t)
		}
		ans.after(before)
		if end := y.releaseAfter(before, t); end != nil {
			end.after(ans)
		}
	}
}

// releaseAfter is the unit's first commit or answer after step from that was
// observed after t: where its key stopped being in flight.
func (u *unit) releaseAfter(from *step, t time.Duration) *step {
	seen := from == nil
	for _, st := range u.steps {
		if st == from {
			seen = true
			continue
		}
		commit := st.kind == pointStep && st.ev.Point == "after-commit"
		if seen && st.at > t && (commit || st.kind == answerStep) {
			return st
		}
	}
	return nil
}

// busyAt reports whether the unit was on the server at t.
func (u *unit) busyAt(t time.Duration) bool {
	a, b := u.first().Server, u.last().Server
	return a != nil && b != nil && a.Start <= t && t <= b.End
}

// around returns the unit's last server step observed at or before t and
// its first step after t.
func (u *unit) around(t time.Duration) (*step, *step) {
	i := sort.Search(len(u.steps), func(i int) bool { return u.steps[i].at > t })
	var before, after *step
	if i > 0 {
		before = u.steps[i-1]
	}
	if i < len(u.steps) {
		after = u.steps[i]
	}
	return before, after
}

// linkStore orders the reads and writes of the key's record as observed: a
// key check, or an answer decided from the record, told after the stores
// that came before it and before those that came after.
func (s *story) linkStore() {
	var reads, writes []*step
	for _, u := range s.units {
		for _, st := range u.steps {
			switch {
			case st.kind == pointStep && st.ev.Point == "after-check":
				reads = append(reads, st)
			case st.kind == pointStep && st.ev.Point == "before-store-response":
				writes = append(writes, st)
			case st.kind == answerStep && len(u.events) == 0:
				reads = append(reads, st)
			}
		}
	}
	for _, r := range reads {
		for _, w := range writes {
			switch {
			case r.u == w.u:
			case r.at < w.at:
				w.after(r)
			case w.at < r.at:
				r.after(w)
			}
		}
	}
}

// linkStandby: on a strategy that looks the key up on the hot standby,
// the requests' key checks, key-row writes and commits are told in the
// order they were observed: whether a look-up came after the commit it
// missed (the standby lagged) or before it (the requests raced) is the
// story, and a client that timed out may retry before its first try
// commits.
func (s *story) linkStandby() {
	if !s.mech.standby {
		return
	}
	var steps []*step
	for _, u := range s.units {
		for _, st := range u.steps {
			if st.kind == pointStep && (st.ev.Point == "after-check" || st.ev.Point == "before-store-response" || st.ev.Point == "after-commit") {
				steps = append(steps, st)
			}
		}
	}
	for _, x := range steps {
		for _, y := range steps {
			if x.u != y.u && y.at < x.at {
				x.after(y)
			}
		}
	}
}

// claim is the unit's first step that holds the key (its key check or
// claim), or nil.
func (u *unit) claim() *step {
	for _, st := range u.steps {
		if st.kind == pointStep && (st.ev.Point == "after-check" || st.ev.Point == "after-claim") {
			return st
		}
	}
	return nil
}
