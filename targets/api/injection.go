package api

import (
	"fmt"
	"strings"
	"time"
)

// Action is what an Injection does inside the target.
type Action string

// The actions a plan can inject inside a target.
const (
	Delay     Action = "delay"      // the request waits at the point
	PGCut     Action = "pg-cut"     // the app-to-Postgres link is cut until the request ends
	RedisCut  Action = "redis-cut"  // the app-to-Redis link is cut until the request ends
	PGLatency Action = "pg-latency" // latency on the app-to-Postgres link until the request ends
	// PGDropReply loses what the database answers on the app-to-Postgres
	// link (the app's SQL link: MariaDB's for a target on InnoDB) until
	// the request ends, the connection closed soon after: a COMMIT sent
	// from the point on commits, and the app never hears it did.
	PGDropReply Action = "pg-drop-reply"
	// DynamoDBCut cuts the app-to-DynamoDB link until the request ends: a
	// user's service's, as no built-in strategy keeps its keys in DynamoDB.
	DynamoDBCut Action = "dynamodb-cut"
)

// The actions that need the harness's own replicated Postgres (a primary
// and a streaming hot standby): a built-in target's plans only.
const (
	// StandbyLag puts latency on the primary-to-standby replication link
	// until the run's traffic is over: the hot standby falls behind.
	StandbyLag Action = "standby-lag"
	// PGCrash kills the primary with SIGKILL at the point (what it had not
	// written of its WAL is lost), restarts it and waits for its recovery
	// before the request goes on.
	PGCrash Action = "pg-crash"
)

// Actions lists every action a scenario file may place.
func Actions() []Action { return []Action{Delay, PGCut, RedisCut, PGLatency, PGDropReply, DynamoDBCut} }

// ReplicationActions lists the actions of the replicated Postgres.
func ReplicationActions() []Action { return []Action{StandbyLag, PGCrash} }

// TakesDuration reports whether the action is measured in time (a delay,
// a latency).
func (a Action) TakesDuration() bool { return a == Delay || a == PGLatency || a == StandbyLag }

// CutsLink reports whether the action cuts a store link: the one kind of
// in-target fault a harness can also apply from outside, on a proxy the
// service's store traffic goes through.
func (a Action) CutsLink() bool { return a == PGCut || a == RedisCut || a == DynamoDBCut }

// MaxInjectionArg bounds the duration of an injection.
const MaxInjectionArg = 10 * time.Second

// Injection is a fault fired inside the target when a request reaches a
// point, written "ACTION[:DURATION]@POINT" ("redis-cut@after-commit",
// "delay:200ms@before-commit") in plans and fault schedules. It is read
// once, where it enters (a scenario file, a saved plan through
// UnmarshalText), and handled as this value from there on. The zero
// Injection is none: it writes as "" (a plan's omitzero field leaves it
// out) and "" reads back as it.
type Injection struct {
	Action Action
	Arg    time.Duration // the delay or latency; 0 for a cut
	Point  Point
}

// ParseInjection reads "ACTION[:DURATION]@POINT".
//
// It is for where an injection enters the harness as text; a value already
// read is an Injection, not its string.
func ParseInjection(s string) (Injection, error) {
	var in Injection
	what, where, ok := strings.Cut(s, "@")
	if !ok {
		return in, fmt.Errorf("injection %q: want ACTION@POINT", s)
	}
	p, err := ParsePoint(where)
	if err != nil {
		return in, fmt.Errorf("injection %q: %w", s, err)
	}
	in.Point = p
	name, arg, hasArg := strings.Cut(what, ":")
	if !knownAction(Action(name)) {
		return in, fmt.Errorf("injection %q: unknown action %q", s, name)
	}
	in.Action = Action(name)
	if hasArg {
		if in.Arg, err = time.ParseDuration(arg); err != nil || in.Arg <= 0 || in.Arg > MaxInjectionArg {
			return in, fmt.Errorf("injection %q: duration %q not in (0, %s]", s, arg, MaxInjectionArg)
		}
	}
	return in, nil
}

func knownAction(a Action) bool {
	for _, k := range append(Actions(), ReplicationActions()...) {
		if a == k {
			return true
		}
	}
	return false
}

// String writes the injection as ParseInjection reads it.
func (in Injection) String() string {
	if in.Arg > 0 {
		return fmt.Sprintf("%s:%s@%s", in.Action, in.Arg, in.Point)
	}
	return string(in.Action) + "@" + string(in.Point)
}

// IsZero reports whether in is no injection at all (encoding/json's
// omitzero leaves such a field out).
func (in Injection) IsZero() bool { return in == Injection{} }

// Validate reports an injection that ParseInjection would not read back
// from its String: an unknown action or point, a duration out of range.
func (in Injection) Validate() error {
	back, err := ParseInjection(in.String())
	if err != nil {
		return err
	}
	if back != in {
		return fmt.Errorf("injection %q: duration %s not in (0, %s]", in, in.Arg, MaxInjectionArg)
	}
	return nil
}

// MarshalText writes the injection as String does; the zero Injection as
// "". An injection that does not Validate is an error, so that nothing is
// saved that cannot be loaded again.
func (in Injection) MarshalText() ([]byte, error) {
	if in.IsZero() {
		return []byte{}, nil
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	return []byte(in.String()), nil
}

// UnmarshalText reads what MarshalText writes: "" as the zero Injection,
// anything else through ParseInjection, so that a malformed injection is an
// error where it is decoded.
func (in *Injection) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*in = Injection{}
		return nil
	}
	v, err := ParseInjection(string(b))
	if err != nil {
		return err
	}
	*in = v
	return nil
}
