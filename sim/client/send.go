package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"

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
	req, err := c.request(tctx, base, fields, &a.Reused)
	if err != nil {
		a.Outcome, a.Err = history.NotSent, err.Error()
		return a
	}
	c.addHeaders(req, op, n)
	a.Call = c.cfg.Since()
	resp, err := c.http.Do(req)
	if err == nil {
		err = c.readResponse(resp, &a)
	}
	a.Return = c.cfg.Since()
	if err != nil {
		classifyError(ctx, err, &a)
	}
	return a
}

// request builds the HTTP request of attempt a. GetBody is cleared so the
// transport can never rewind and re-send the body behind the client's back.
func (c *Client) request(ctx context.Context, base string, f BodyFields, reused *bool) (*http.Request, error) {
	b, err := c.shape.render(f)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+c.shape.Path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.GetBody = nil
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderAttempt, f.Attempt)
	if f.Key != "" {
		req.Header.Set(c.shape.KeyHeader, f.Key)
	}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { *reused = *reused || info.Reused }}
	return req.WithContext(httptrace.WithClientTrace(ctx, trace)), nil
}

// addHeaders adds the Config's extra headers for try n of op, leaving the
// ones the client sets alone.
func (c *Client) addHeaders(req *http.Request, op workload.Op, n int) {
	if c.cfg.Header == nil {
		return
	}
	for k, vs := range c.cfg.Header(op, n) {
		if req.Header.Get(k) == "" {
			req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
}

// readResponse fills a from a response and closes its body.
func (c *Client) readResponse(resp *http.Response, a *history.Attempt) error {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return err // the status line arrived but the body did not: outcome unknown
	}
	a.Status, a.Body = resp.StatusCode, string(b)
	a.Replayed = c.shape.replayed(resp.Header)
	switch {
	case c.shape.acked(a.Status):
		a.Outcome = history.Acked
		a.ChargeID = c.shape.chargeID(b)
	case a.Status/100 == 4:
		a.Outcome = history.Rejected
	default:
		a.Outcome = history.Indeterminate
	}
	return nil
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
		a.Outcome, a.Err = history.Indeterminate, "timeout: "+err.Error()
	default:
		a.Outcome, a.Err = history.Indeterminate, err.Error()
	}
}
