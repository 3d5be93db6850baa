package narrate

import (
	"fmt"
	"strconv"
)

// client names the client of a unit: "client A", "replay probe 1" (or
// "the replay probe", when the story tells one), or "the probe".
func (u *unit) client() string {
	switch {
	case u.op.replay && u.op.replayN > 0:
		return "replay probe " + strconv.Itoa(u.op.replayN)
	case u.op.replay:
		return "the replay probe"
	case u.op.probe:
		return "the probe"
	}
	return "client " + u.op.letter
}

// request names the unit's request: "request A", "request A2" when its
// client sent several, or its probe's name.
func (u *unit) request() string {
	if u.op.probe {
		return u.client()
	}
	if len(u.op.units) == 1 {
		return "request " + u.op.letter
	}
	return fmt.Sprintf("request %s%d", u.op.letter, u.n)
}

// short is the unit's name in the diagram: "A", "A2", "rp1", "probe".
func (u *unit) short() string {
	if u.op.probe {
		return u.probeID()
	}
	if len(u.op.units) == 1 {
		return u.op.letter
	}
	return fmt.Sprintf("%s%d", u.op.letter, u.n)
}

// replicaNum is the replica that served (or was to serve) the unit.
func (u *unit) replicaNum() int {
	if srv := u.first().Server; srv != nil {
		return srv.Replica
	}
	return u.first().Replica
}

// replica names it: "replica 0".
func (u *unit) replica() string { return "replica " + strconv.Itoa(u.replicaNum()) }

// probeID names a probe in the diagram: "rp1", "rp" (the one replay
// probe told), "probe".
func (u *unit) probeID() string {
	switch {
	case u.op.replay && u.op.replayN > 0:
		return "rp" + strconv.Itoa(u.op.replayN)
	case u.op.replay:
		return "rp"
	}
	return "probe"
}

// mid is the unit's client participant in the diagram.
func (u *unit) mid() string {
	if u.op.probe {
		return u.probeID()
	}
	return "c" + u.op.letter
}

// rid is the unit's replica participant in the diagram.
func (u *unit) rid() string { return "R" + strconv.Itoa(u.replicaNum()) }
