package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// fund pays a top-up into a user's service: the request it declared
// (External.TopUp), POSTed once, without retries, through the clean proxy
// in front of its first URL. An answer other than a 2xx, or none, fails
// the top-up (the run then proves nothing: inconclusive).
func (r *Service) fund(fr *front) funder {
	return func(ctx context.Context, t workload.TopUp) scenarios.TopUpDone {
		var done scenarios.TopUpDone
		status, err := r.postTopUp(ctx, fr, t)
		done.Status = status
		if err != nil {
			done.Err = err.Error()
		}
		return done
	}
}

// maxTopUpAnswer bounds how much of a failed top-up's answer is quoted.
const maxTopUpAnswer = 200

func (r *Service) postTopUp(ctx context.Context, fr *front, t workload.TopUp) (int, error) {
	top := r.target.TopUp
	if top == nil {
		return 0, fmt.Errorf("the service declared no top-up request (--topup-path)")
	}
	currency := r.target.Currency
	if currency == "" {
		currency = workload.Currency
	}
	path, body, err := top.Render(scenarios.TopUpFields{Account: t.Account, Amount: t.Amount, Currency: currency})
	if err != nil {
		return 0, err
	}
	base, err := fr.route(0, "")
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, topUpTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("top-up request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	cl := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := cl.Do(req)
	if err != nil {
		return 0, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxTopUpAnswer))
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("POST %s answered %d (%s)", path, resp.StatusCode,
			strings.Join(strings.Fields(string(answer)), " "))
	}
	return resp.StatusCode, nil
}
