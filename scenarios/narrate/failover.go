package narrate

import (
	"fmt"
	"slices"

	"github.com/idemchaos/idemchaos/sim/workload"
)

// storeEvents tells what happened to the replicated Redis before the stage
// of unit u, once: the replication link cut, the primary killed, the
// replica promoted, and whether the story's key survived it, as the run
// saw it (the records the killed primary held, those the new one lacks).
func (r *renderer) storeEvents(u *unit) {
	st := u.stage()
	if st <= r.evented {
		return
	}
	f := r.s.rec.Obs.Failover
	for _, e := range r.s.rec.Plan.Events {
		if f != nil && e.Stage > r.evented && e.Stage <= st {
			r.storeEvent(e.Action)
		}
	}
	r.evented = st
}

// storeEvent tells one event.
func (r *renderer) storeEvent(action string) {
	f := r.s.rec.Obs.Failover
	switch action {
	case workload.ReplCut:
		r.say("the Redis replica has every write so far (WAIT 1 answered %d); then the replication link from the primary is cut: "+
			"the primary goes on acknowledging writes on its own", f.Replicated)
		r.note("replication to the replica cut")
	case workload.PrimaryKill:
		r.killed()
	}
}

// killed tells the kill and the promotion, and what the new primary has
// of the story's key.
func (r *renderer) killed() {
	f := r.s.rec.Obs.Failover
	rkey := "idem:" + r.s.ops[0].key
	held, lost := slices.Contains(f.Held, rkey), slices.Contains(f.Lost, rkey)
	switch {
	case held && lost:
		r.say("the Redis primary is killed (SIGKILL) holding key %s's record, which its replica never got", short(r.s.ops[0].key))
	case held:
		r.say("the Redis primary is killed (SIGKILL); its replica already has key %s's record", short(r.s.ops[0].key))
	default:
		r.say("the Redis primary is killed (SIGKILL)")
	}
	r.note("primary killed")
	if !f.Promoted {
		r.say("Sentinel does not promote the replica: %s", f.Err)
		return
	}
	what := ""
	switch {
	case lost:
		what = fmt.Sprintf(": the new primary has no record of key %s, acknowledged or not", short(r.s.ops[0].key))
	case held:
		what = fmt.Sprintf(": the new primary has key %s's record", short(r.s.ops[0].key))
	}
	if f.Forced {
		r.say("Sentinel's own election has not promoted the replica in time, so the harness forces the failover (SENTINEL FAILOVER)")
	}
	r.say("Sentinel promotes the replica to primary%s", what)
	r.note("replica promoted by Sentinel")
}

// note draws a note on the Redis lane, when the diagram has one.
func (r *renderer) note(text string) {
	if r.s.mech.usesRedis {
		r.draw("Note over Redis: %s", text)
	}
}
