package narrate

import (
	"fmt"
	"strconv"
)

// client names the client of a unit: "client A", or "the probe".
func (u *unit) client() string {
	if u.op.probe {
		return "the probe"
	}
	return "client " + u.op.letter
}

// request names the unit's request: "request A", "request A2" when its
// client sent several, or "the probe".
func (u *unit) request() string {
	if u.op.probe {
		return "the probe"
	}
	if len(u.op.units) == 1 {
		return "request " + u.op.letter
	}
	return fmt.Sprintf("request %s%d", u.op.letter, u.n)
}

// short is the unit's name in the diagram: "A", "A2", "probe".
func (u *unit) short() string {
	if u.op.probe {
		return "probe"
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

// mid is the unit's client participant in the diagram.
func (u *unit) mid() string {
	if u.op.probe {
		return "probe"
	}
	return "c" + u.op.letter
}

// rid is the unit's replica participant in the diagram.
func (u *unit) rid() string { return "R" + strconv.Itoa(u.replicaNum()) }
