package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/idemchaos/idemchaos/scenarios/explore"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint"
)

// maxHeld bounds how long the scheduler holds a request at a point: past
// it the request goes on whatever the scheduler does (it only happens when
// an execution was abandoned).
const maxHeld = time.Minute

// holds parks the requests of the running executions at every point,
// each until its execution releases it: the scheduler's side of the
// target's failpoints.
type holds struct {
	since func() time.Duration // the run's clock, the client's
	mu    sync.Mutex
	by    map[string]holder // attempt id
}

// holder is the request an attempt id belongs to.
type holder struct {
	x *execution
	r int
}

// arm installs the holds at every point of set.
func (h *holds) arm(set *failpoint.Set) {
	for _, p := range api.Points() {
		set.Arm("explore", p, failpoint.Any, h.at)
	}
}

func (h *holds) at(ctx context.Context, hit failpoint.Hit) func() {
	h.mu.Lock()
	w, ok := h.by[hit.AttemptID]
	h.mu.Unlock()
	if !ok {
		return nil
	}
	release := make(chan struct{})
	heal := w.x.arrive(w.r, string(hit.Point))
	w.x.events <- event{r: w.r, hold: string(hit.Point), release: release, at: h.since(), heal: heal}
	t := time.NewTimer(maxHeld)
	defer t.Stop()
	select {
	case <-release:
	case <-ctx.Done():
	case <-t.C:
	}
	return nil
}

func (h *holds) add(id string, x *execution, r int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil {
		h.by = map[string]holder{}
	}
	h.by[id] = holder{x: x, r: r}
}

func (h *holds) drop(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.by, id)
}

// event is a request reaching a point (held there until release is
// closed), or answered (done, with its attempt).
type event struct {
	r       int
	hold    string
	release chan struct{}
	at      time.Duration // when it reached the hold, on the run's clock
	heal    func()        // heals the cut the case made as it reached the hold
	done    bool
	attempt history.Attempt
}

// reqState is where a request of an execution is.
type reqState int

const (
	held    reqState = iota // at a hold, waiting to be released
	running                 // released, on its way to its next hold or answer
	waiting                 // released and not moved within the bound: waiting on another
	done                    // answered
)

// execution is one order being run: its requests, each an op of one try
// on the execution's key and account.
type execution struct {
	c       explore.Case
	ops     []workload.Op
	events  chan event
	state   []reqState
	hold    []string
	release []chan struct{}
	atts    []history.Attempt
	timings []time.Duration // how long each step took to reach the next hold or answer
	choices int             // made so far
	// marked is, per request taken to wait, its step and the choices made
	// then, if every other request was held or answered (-1: none): one
	// that moves before another choice was slow, not waiting on another,
	// and its step is unmarked (slow, below).
	marked   []waitMark
	slow     []int // the steps unmarked
	answered []int // per request: choices made when its answer came (-1: not yet)
	// lostAt is when A reached the case's point (a lost reply: when its
	// client gave up); passed whether it has.
	lostAt time.Duration
	passed bool
	// cut cuts the case's store link (the target's); heal, once cut,
	// heals it, when A is answered.
	cut  func() (heal func(), err error)
	heal func()
	// kill kills A's process where a kill case strikes; dead says it did:
	// A is answered nothing from then on, revive brings its process back
	// once its request is over (deadRelease lets it go on, deadDone says
	// its handler finished).
	kill        func() (revive func(), err error)
	dead        bool
	revive      func()
	deadRelease chan struct{}
	deadDone    bool
}

// waitMark is a step taken to wait, and the choices made when it was.
type waitMark struct{ step, choices int }

// newExecution is execution n of a case: requests ops on key and
// account, A's payload amount, another one amount+1.
func newExecution(n, requests int, c explore.Case, key, account, currency string, amount int64) *execution {
	x := &execution{c: c, events: make(chan event, 4*requests), state: make([]reqState, requests), hold: make([]string, requests),
		release: make([]chan struct{}, requests), atts: make([]history.Attempt, requests), answered: make([]int, requests),
		marked: make([]waitMark, requests)}
	for r := range requests {
		op := workload.Op{ID: n*opStride + r, Key: key, Account: account, Amount: amount, Currency: currency,
			Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{Replica: 0}}}
		if c.Other[r] {
			op.Amount++
		}
		if c.Kill && r > 0 { // the retries go to the process that replaced A's
			op.Tries = []workload.Try{{Replica: 1}}
		}
		x.ops = append(x.ops, op)
		x.hold[r], x.answered[r] = explore.Send, -1
	}
	return x
}

// opStride spaces the op ids of executions: a request each, and a probe.
const opStride = explore.MaxRequests + 1

// probeID is the op id of the execution's probe, which no hold parks.
func (x *execution) probeID() int { return x.ops[0].ID + explore.MaxRequests }

// attemptID is request r's attempt id.
func (x *execution) attemptID(r int) string { return client.AttemptID(x.ops[r].ID, 1) }

// run drives the execution: the choices of prefix, then the default, each
// releasing one held request and waiting until it is held again, answered,
// or past bound (then it waits on another, and is not released again until
// it moves). It returns the execution and its choices; an error when the
// prefix asks for a request that is not held (the target chose otherwise
// than when the order was found).
func (x *execution) run(ctx context.Context, cl *client.Client, prefix explore.Order, bound time.Duration) (explore.Execution, []explore.Choice, error) {
	var ex explore.Execution
	var choices []explore.Choice
	last := -1
	for !x.allDone() {
		enabled := x.enabled()
		if enabled == 0 {
			if !x.awaitAny(ctx, stallBound(bound)) {
				ex.Stalled = fmt.Sprintf("every request was waiting and none moved within %s", stallBound(bound))
				break
			}
			continue
		}
		r := explore.Default(enabled, last)
		if len(choices) < len(prefix) {
			r = prefix[len(choices)]
			if enabled&(1<<r) == 0 {
				x.abandon()
				return ex, choices, fmt.Errorf("order %s, choice %d: %c is not held (held: %s)", prefix, len(choices)+1, explore.Names[r], heldNames(enabled))
			}
		}
		choices = append(choices, explore.Choice{Enabled: enabled, Chosen: r})
		x.choices = len(choices)
		ex.Order = append(ex.Order, r)
		ex.Steps = append(ex.Steps, explore.Step{Request: r, From: x.hold[r]})
		x.start(ctx, cl, r)
		if !x.awaitStep(ctx, r, bound) {
			x.mark(r, len(ex.Steps)-1)
			ex.Steps[len(ex.Steps)-1].Waited = true
		}
		if x.anyWaiting() {
			x.settle(ctx, x.patience(bound))
		}
		last = r
	}
	x.abandon()
	for _, k := range x.slow {
		ex.Steps[k].Waited = false
	}
	ex.Attempts, ex.Answered = append(ex.Attempts, x.atts...), append(ex.Answered, x.answered...)
	if x.c.Lost && x.passed && len(ex.Attempts) > 0 {
		lose(&ex.Attempts[0], x.c.At, x.lostAt)
	}
	return ex, choices, ctx.Err()
}

// lose makes a's answer one its client never saw: it gave up at at, when
// the request reached point (or as the answer came).
func lose(a *history.Attempt, point string, at time.Duration) {
	a.Status, a.Body, a.ChargeID, a.Replayed = 0, "", "", false
	a.Outcome, a.Return = history.Indeterminate, max(at, a.Call)
	a.Err = "the answer was lost: its client gave up as the request reached " + point
}

// patience is how long the waiting requests are given to move before the
// next choice: the bound once more when one was taken to wait with every
// other parked or answered (it moves now only if it was slow, and a loaded
// machine's stall outlasts the bound far more often than twice it: the
// determinism check saw pg-tx's duplicate held and then not at load 13),
// a fifth of it otherwise.
func (x *execution) patience(bound time.Duration) time.Duration {
	for r, s := range x.state {
		if s == waiting && x.marked[r].choices == x.choices {
			return max(bound, minSettle)
		}
	}
	return max(bound/5, minSettle)
}

// minSettle is the least time the waiting requests are given to move
// after another request's step.
const minSettle = 50 * time.Millisecond

// stallBound is how long an execution whose requests all wait is given
// before it is called stalled.
func stallBound(bound time.Duration) time.Duration { return min(20*bound, 30*time.Second) }

func heldNames(set uint8) string {
	s := ""
	for r := range explore.MaxRequests {
		if set&(1<<r) != 0 {
			s += explore.Names[r : r+1]
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// start releases request r: sends it, or lets it go on from its point.
func (x *execution) start(ctx context.Context, cl *client.Client, r int) {
	x.state[r] = running
	if x.hold[r] == explore.Send {
		op := x.ops[r]
		go func() {
			atts := cl.Run(ctx, workload.Plan{Ops: []workload.Op{op}})
			a := history.Attempt{ID: x.attemptID(r), Op: op.ID, Try: 1, Outcome: history.NotSent, Err: "not sent"}
			if len(atts) > 0 {
				a = atts[0]
			}
			x.events <- event{r: r, done: true, attempt: a}
		}()
		return
	}
	close(x.release[r])
	x.release[r] = nil
}

// mark takes request r, released at step k, to wait on another. Only a
// request that cannot be blocked by another can be unmarked: every other
// is parked by the scheduler or answered, so none is doing work it could
// wait on.
func (x *execution) mark(r, k int) {
	x.state[r], x.marked[r] = waiting, waitMark{step: k, choices: -1}
	for o, s := range x.state {
		if o != r && s != held && s != done {
			return
		}
	}
	x.marked[r].choices = x.choices
}

// handle applies an event.
func (x *execution) handle(e event) {
	if m := x.marked[e.r]; x.state[e.r] == waiting && m.choices >= 0 && m.choices == x.choices {
		x.slow = append(x.slow, m.step) // it moved with every other still parked: it was slow, not waiting
	}
	if x.c.Kill && e.r == 0 && (x.dead || !e.done && e.hold == x.c.At) {
		x.handleDead(e)
		return
	}
	if e.r == 0 && !x.passed && (e.hold == x.c.At || e.done && x.c.At == explore.Answer) {
		x.passed, x.lostAt = true, e.at
		if e.done {
			x.lostAt = e.attempt.Return
		}
	}
	if e.heal != nil {
		x.heal = e.heal
	}
	if e.done {
		x.state[e.r], x.atts[e.r], x.answered[e.r] = done, e.attempt, x.choices
		if e.r == 0 && x.heal != nil {
			x.heal()
			x.heal = nil
		}
		return
	}
	x.state[e.r], x.hold[e.r], x.release[e.r] = held, e.hold, e.release
}

// handleDead applies an event of A in a kill case: A reaching the case's
// point, where its process was killed (arrive), is A answered nothing at
// that moment; what its dead process does later is no client's.
func (x *execution) handleDead(e event) {
	if x.dead {
		if e.done && !x.deadDone { // the attempt as its client sent it, answered nothing
			x.deadDone, x.atts[0] = true, e.attempt
			lose(&x.atts[0], x.c.At, x.lostAt)
			x.atts[0].Err = "no answer: its process was killed as the request reached " + x.c.At
		}
		return
	}
	x.dead, x.revive, x.deadRelease, x.passed, x.lostAt = true, e.heal, e.release, true, e.at
	x.state[0], x.answered[0] = done, x.choices
	x.atts[0] = history.Attempt{ID: x.attemptID(0), Op: x.ops[0].ID, Try: 1, Outcome: history.Indeterminate, Call: e.at, Return: e.at,
		Err: "no answer: its process was killed as the request reached " + x.c.At + " (and its handler never ended)"}
}

// awaitStep handles events until request r is no longer running (true),
// or bound passes (false).
func (x *execution) awaitStep(ctx context.Context, r int, bound time.Duration) bool {
	start := time.Now()
	t := time.NewTimer(bound)
	defer t.Stop()
	for x.state[r] == running {
		select {
		case e := <-x.events:
			x.handle(e)
		case <-t.C:
			return false
		case <-ctx.Done():
			return true
		}
	}
	x.timings = append(x.timings, time.Since(start))
	return true
}

// settle gives the waiting requests d to move, now that another went on.
func (x *execution) settle(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for x.anyWaiting() {
		select {
		case e := <-x.events:
			x.handle(e)
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// awaitAny handles one event, or reports false after d.
func (x *execution) awaitAny(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case e := <-x.events:
		x.handle(e)
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (x *execution) enabled() uint8 {
	var set uint8
	for r, s := range x.state {
		if s == held && (r == 0 || x.hold[r] != explore.Send || x.mayFollow()) {
			set |= 1 << r
		}
	}
	return set
}

// mayFollow says whether the requests after A may be sent: at once, but
// a lost reply's retries once A passed its point, a cut's once A was
// answered.
func (x *execution) mayFollow() bool {
	switch {
	case x.c.Kill:
		return x.dead
	case x.c.Cut != "":
		return x.state[0] == done
	case x.c.Lost:
		return x.passed
	}
	return true
}

// arrive is request r reaching point, in its own goroutine before it is
// held there: where a cut case strikes, A's store link is cut; where a
// kill case does, A's process is killed. It returns what heals or
// revives it (nil: nothing was struck).
func (x *execution) arrive(r int, point string) func() {
	strike := x.cut
	if x.c.Kill {
		strike = x.kill
	}
	if r != 0 || point != x.c.At || !x.c.Shares() || strike == nil {
		return nil
	}
	heal, err := strike()
	if err != nil {
		return nil
	}
	return heal
}

func (x *execution) allDone() bool {
	for _, s := range x.state {
		if s != done {
			return false
		}
	}
	return true
}

func (x *execution) anyWaiting() bool {
	for _, s := range x.state {
		if s == waiting {
			return true
		}
	}
	return false
}

// abandon lets every held request go on, and waits (bounded) for every
// request sent to be answered, so no handler is left parked; a killed
// process is revived once its request is over.
func (x *execution) abandon() {
	defer x.bury()
	for r := range x.state {
		if x.state[r] == held && x.release[r] != nil {
			close(x.release[r])
			x.release[r] = nil
			x.state[r] = running
		}
	}
	t := time.NewTimer(maxHeld)
	defer t.Stop()
	for r := range x.state {
		for x.state[r] == running || x.state[r] == waiting {
			select {
			case e := <-x.events:
				x.handle(e)
				if !e.done && x.release[e.r] != nil {
					close(x.release[e.r])
					x.release[e.r] = nil
					x.state[e.r] = running
				}
			case <-t.C:
				return
			}
		}
	}
}

// bury lets a killed process's request go on (its store links dead, it
// reaches nothing), waits (bounded) until its handler is over, and
// revives the process.
func (x *execution) bury() {
	if !x.dead {
		return
	}
	if x.deadRelease != nil {
		close(x.deadRelease)
		x.deadRelease = nil
	}
	t := time.NewTimer(maxHeld)
	defer t.Stop()
	for !x.deadDone {
		select {
		case e := <-x.events:
			x.handle(e)
			if !e.done && e.r == 0 && e.release != nil { // a later point of the dead request
				close(e.release)
			}
		case <-t.C:
			return
		}
	}
	if x.revive != nil {
		x.revive()
		x.revive = nil
	}
}
