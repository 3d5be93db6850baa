package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// around applies a try's store fault from outside, for a service without
// the failpoint protocol: a cut as the try is sent, healed when it ends
// ("mid-request" is the best timing there is from outside), recorded in
// cuts; Postgres latency as the try is sent, for the injection's duration
// whenever the try ends (the service's work goes on after its client gave
// up).
func (r *Service) around(injected *atomic.Int64, lat *outsideLatency, cuts *cutLog) func(workload.Op, int) func() {
	return func(op workload.Op, try int) func() {
		in := op.TryAt(try).Inject
		l := r.pgLink
		switch {
		case in.Action == api.PGLatency && r.pgLink != nil:
			if lat.add(r.pgLink, in.Arg) == nil {
				injected.Add(1)
			}
			return nil
		case !in.Action.CutsLink():
			return nil
		case in.Action == api.RedisCut:
			l = r.redisLink
		case in.Action == api.DynamoDBCut:
			l = r.dynamo
		}
		if l == nil {
			return nil
		}
		heal := cuts.cut(l, in.Action, client.AttemptID(op.ID, try))
		if heal != nil {
			injected.Add(1)
		}
		return heal
	}
}

// outsideLatency is the latency toxic placed from outside on a link: one
// at a time, lasting until the latest deadline any try asked for.
type outsideLatency struct {
	mu       sync.Mutex
	deadline time.Time
	timer    *time.Timer
	link     *fault.Link
}

// add puts latency d on l from now for d (a try already holding it only
// moves the deadline on).
func (o *outsideLatency) add(l *fault.Link, d time.Duration) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	until := time.Now().Add(d)
	if o.timer == nil {
		if err := l.Inject(fault.Latency, d); err != nil {
			return err
		}
		o.link, o.deadline = l, until
		o.timer = time.AfterFunc(d, o.expire)
		return nil
	}
	if until.After(o.deadline) {
		o.deadline = until
		o.timer.Reset(time.Until(until))
	}
	return nil
}

// expire takes the latency off once its deadline has passed.
func (o *outsideLatency) expire() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.timer == nil {
		return
	}
	if left := time.Until(o.deadline); left > 0 {
		o.timer.Reset(left)
		return
	}
	_ = o.link.Remove(fault.Latency) // gone already if the links were healed
	o.timer = nil
}

// stop takes the latency off now (the links heal after the traffic).
func (o *outsideLatency) stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.timer != nil {
		o.timer.Stop()
		_ = o.link.Remove(fault.Latency)
		o.timer = nil
	}
}
