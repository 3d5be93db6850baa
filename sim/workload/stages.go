package workload

import "fmt"

// A plan runs in stages: every op of stage s starts once every op of the
// stages before it has finished, and the plan's top-ups of stage s are
// paid in between. A plan without stages is one stage, 0, as before.

// TopUp pays Amount (minor units) into Account before the ops of Stage
// run: what funds an account between a declined charge and its retries.
type TopUp struct {
	Stage   int    `json:"stage"`
	Account string `json:"account"`
	Amount  int64  `json:"amount"`
}

// StoreEvent happens to a replicated store before the ops of Stage run.
type StoreEvent struct {
	Stage  int    `json:"stage"`
	Action string `json:"action"` // ReplCut or PrimaryKill
}

// The store events.
const (
	// ReplCut cuts the replication link once the replica has every write
	// so far: the primary goes on acknowledging writes the replica lacks.
	ReplCut = "repl-cut"
	// PrimaryKill kills the primary (SIGKILL) and waits until Sentinel has
	// promoted the replica.
	PrimaryKill = "primary-kill"
)

// Stages is the number of stages of the plan (at least 1).
func (p Plan) Stages() int {
	n := 1
	for _, op := range p.Ops {
		n = max(n, op.Stage+1)
	}
	for _, t := range p.TopUps {
		n = max(n, t.Stage+1)
	}
	for _, e := range p.Events {
		n = max(n, e.Stage+1)
	}
	return n
}

// Stage is the plan of stage s alone: its ops, in plan order, each After
// pointing at its op's position among them (an op of an earlier stage has
// finished by then: -1), and the top-ups paid before it. Accounts and the
// nonce are kept.
func (p Plan) Stage(s int) (Plan, []TopUp) {
	out := Plan{Accounts: p.Accounts, Nonce: p.Nonce}
	at := map[int]int{} // plan position → position in the stage
	for i, op := range p.Ops {
		if op.Stage != s {
			continue
		}
		at[i] = len(out.Ops)
		if j, ok := at[op.After]; ok && op.After >= 0 {
			op.After = j
		} else {
			op.After = -1
		}
		out.Ops = append(out.Ops, op)
	}
	var tops []TopUp
	for _, t := range p.TopUps {
		if t.Stage == s {
			tops = append(tops, t)
		}
	}
	return out, tops
}

// validateStages checks that ops come in stage order (so that an op waits
// only for an op of its own stage or an earlier one) and that top-ups fund
// before a stage that follows another.
func (p Plan) validateStages() error {
	for i, op := range p.Ops {
		switch {
		case op.Stage < 0 || op.Stage > MaxStages-1:
			return fmt.Errorf("op %d: stage %d not in 0..%d", i, op.Stage, MaxStages-1)
		case i > 0 && op.Stage < p.Ops[i-1].Stage:
			return fmt.Errorf("op %d: stage %d after an op of stage %d; ops come in stage order", i, op.Stage, p.Ops[i-1].Stage)
		}
	}
	if len(p.TopUps) > MaxTopUps {
		return fmt.Errorf("%d top-ups; at most %d", len(p.TopUps), MaxTopUps)
	}
	for i, t := range p.TopUps {
		switch {
		case t.Stage < 1 || t.Stage > MaxStages-1:
			return fmt.Errorf("top-up %d: stage %d not in 1..%d (it funds between two stages)", i, t.Stage, MaxStages-1)
		case t.Account == "":
			return fmt.Errorf("top-up %d: no account", i)
		case t.Amount <= 0:
			return fmt.Errorf("top-up %d: amount %d is not a positive number of minor units", i, t.Amount)
		}
	}
	return p.validateEvents()
}

func (p Plan) validateEvents() error {
	for i, e := range p.Events {
		switch {
		case e.Stage < 1 || e.Stage > MaxStages-1:
			return fmt.Errorf("store event %d: stage %d not in 1..%d (it happens between two stages)", i, e.Stage, MaxStages-1)
		case e.Action != ReplCut && e.Action != PrimaryKill:
			return fmt.Errorf("store event %d: unknown action %q (known: %s, %s)", i, e.Action, ReplCut, PrimaryKill)
		}
	}
	return nil
}

// EventsAt are the store events before stage s, in plan order.
func (p Plan) EventsAt(s int) []StoreEvent {
	var out []StoreEvent
	for _, e := range p.Events {
		if e.Stage == s {
			out = append(out, e)
		}
	}
	return out
}

// Bounds of a staged plan.
const (
	MaxStages = 64 // a race-hunting run against a service sends up to this many rounds
	MaxTopUps = 64
)

// FirstStages is the plan with its first n stages only: the ops, top-ups
// and store events of the later stages left out (a plan run in rounds
// that stopped early keeps those it ran).
func (p Plan) FirstStages(n int) Plan {
	if n >= p.Stages() {
		return p
	}
	out := p
	out.Ops, out.TopUps, out.Events = nil, nil, nil
	for _, op := range p.Ops {
		if op.Stage < n {
			out.Ops = append(out.Ops, op)
		}
	}
	for _, t := range p.TopUps {
		if t.Stage < n {
			out.TopUps = append(out.TopUps, t)
		}
	}
	for _, e := range p.Events {
		if e.Stage < n {
			out.Events = append(out.Events, e)
		}
	}
	return out
}
