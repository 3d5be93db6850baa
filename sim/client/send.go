package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"

	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
	"github.com/idemchaos/idemchaos/targets/api"
)

// maxBody bounds how much of a response is kept as evidence.
const maxBody = 16 << 10

// errAborted marks an attempt cut short because the whole run was stopped.
const errAborted = "run aborted"

func workloadStream(seed uint64, op int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(op)+1))
}

// send puts try n of op on the wire and records what happened.
func (c *Client) send(ctx context.Context, op workload.Op, n int) history.Attempt {
	plan := op.TryAt(n)
	body := api.ChargeRequest{Account: op.Account, Amount: op.Amount, Currency: op.Currency}
	a := history.Attempt{Op: op.ID, Try: n, ID: AttemptID(op.ID, n), Key: op.Key, Account: op.Account,
		Amount: op.Amount, Fingerprint: body.Fingerprint(), Replica: plan.Replica, Fault: plan.Fault}
	base, err := c.cfg.Routes(plan.Replica, plan.Fault)
	if err == nil {
		err = c.shapeErr
	}
	if err != nil {
		a.Call, a.Return, a.Outcome, a.Err = c.cfg.Since(), c.cfg.Since(), history.NotSent, err.Error()
		return a
	}
	tctx, cancel := context.WithTimeout(ctx, c.cfg.Policy.PerTry)
	defer cancel()
	fields := BodyFields{Account: op.Account, Amount: op.Amount, Currency: op.Currency, Key: op.Key, Attempt: a.ID}
	t, head, payload, err := c.request(base, fields, op, n)
	if err != nil {
		a.Outcome, a.Err = history.NotSent, err.Error()
		return a
	}
	a.Call = c.cfg.Since()
	ex, err := c.wire.post(tctx, t, head, payload, c.lateFor(a.ID))
	a.Reused = ex.reused
	if err == nil {
		c.readResponse(ex, &a)
	}
	a.Return = c.cfg.Since()
	if err != nil {
		classifyError(ctx, err, &a)
	}
	return a
}

// request renders attempt n of op: where it goes, its header lines and its
// body. The client sets Content-Type, the attempt id and the key; the
// Config's extra headers for the try never replace them.
func (c *Client) request(base string, f BodyFields, op workload.Op, n int) (target, []byte, []byte, error) {
	b, err := c.shape.render(f)
	if err != nil {
		return target{}, nil, nil, err
	}
	t, err := c.wire.target(base + c.shape.Path)
	if err != nil {
		return target{}, nil, nil, err
	}
	var h header
	h.add("Content-Type", "application/json")
	h.add(api.HeaderAttempt, f.Attempt)
	if f.Key != "" {
		h.add(c.shape.KeyHeader, f.Key)
	}
	if c.cfg.Header != nil {
		h.addMissing(c.cfg.Header(op, n))
	}
	return t, h.lines, b, h.err
}

// readResponse fills a from an answer (a body cut short is an error of the
// exchange: outcome unknown).
func (c *Client) readResponse(ex exchange, a *history.Attempt) {
	a.Status, a.Body = ex.status, string(ex.body)
	a.Replayed = c.shape.replayed(ex.header)
	switch {
	case c.shape.acked(a.Status):
		a.Outcome = history.Acked
		a.ChargeID = c.shape.chargeID(ex.body)
	case a.Status/100 == 4:
		a.Outcome = history.Rejected
	default:
		a.Outcome = history.Indeterminate
	}
}

// classifyError decides whether a failed attempt may have been applied.
func classifyError(run context.Context, err error, a *history.Attempt) {
	a.Status, a.Body, a.ChargeID = 0, "", ""
	var op *net.OpError
	switch {
	case run.Err() != nil:
		a.Outcome, a.Err = history.Indeterminate, errAborted
	case errors.As(err, &op) && op.Op == "dial":
		a.Outcome, a.Err = history.NotSent, err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		a.Outcome, a.Err = history.Indeterminate, history.TimeoutErr+err.Error()
	default:
		a.Outcome, a.Err = history.Indeterminate, err.Error()
	}
}
