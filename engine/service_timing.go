package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/client"
	"github.com/idemchaos/idemchaos/sim/history"
	"github.com/idemchaos/idemchaos/sim/workload"
)

// Timer measures how long a charge takes on a target, for the cells that
// adapt to it (Cell.NeedsTiming): a Service.
type Timer interface {
	Timing(ctx context.Context) (*scenarios.Timing, error)
}

// calibrationAmount is what each measuring charge takes (minor units).
const calibrationAmount = 100

// Timing measures, once per Service (a failure too), how long the service takes to charge:
// scenarios.CalibrationCharges charges sent one after another straight to
// its first URL, each with a fresh key, on its first account (they are
// real charges, under keys no run uses). A service that answers too few of
// them 2xx is an environment error, told as soon as the charges left could
// no longer make up the number (a service that never answers costs three
// per-try timeouts, not five).
func (r *Service) Timing(ctx context.Context) (*scenarios.Timing, error) {
	r.timingMu.Lock()
	defer r.timingMu.Unlock()
	if r.timing != nil || r.timingErr != nil {
		return r.timing, r.timingErr
	}
	cl := client.New(client.Config{Routes: func(int, string) (string, error) { return strings.TrimSuffix(r.target.URLs[0], "/"), nil },
		Shape: r.target.Shape, Policy: client.Policy{PerTry: calibrationPerTry}})
	defer cl.Close()
	var attempts []history.Attempt
	var samples []time.Duration
	for i, op := range r.calibrationPlan().Ops {
		if len(samples)+scenarios.CalibrationCharges-i < scenarios.CalibrationNeeded {
			break // too few left to measure: the answer is already known
		}
		got := cl.Run(ctx, workload.Plan{Ops: []workload.Op{op}})
		if err := ctx.Err(); err != nil {
			return nil, err // not kept: the run was interrupted
		}
		for _, a := range got {
			if a.Outcome == history.Acked {
				samples = append(samples, a.Return-a.Call)
			}
		}
		attempts = append(attempts, got...)
	}
	r.answers.Add(int64(countAnswers(attempts)))
	r.timing, r.timingErr = scenarios.NewTiming(samples, len(attempts))
	if r.timingErr != nil {
		r.timingErr = fmt.Errorf("measuring %s: %w%s", r.target.URLs[0], r.timingErr, statusesSeen(attempts))
	}
	return r.timing, r.timingErr
}

// calibrationPerTry bounds one measuring charge: a service slower than
// this is not one a client-timeout scenario can run against in time.
const calibrationPerTry = 10 * time.Second

func (r *Service) calibrationPlan() workload.Plan {
	account := workload.AccountID(1)
	if len(r.target.Accounts) > 0 {
		account = r.target.Accounts[0]
	}
	currency := workload.Currency
	if r.target.Currency != "" {
		currency = r.target.Currency
	}
	rng := rand.New(rand.NewPCG(newNonce(), newNonce()))
	var p workload.Plan
	for i := range scenarios.CalibrationCharges {
		p.Ops = append(p.Ops, workload.Op{ID: i, Key: workload.NewKey(rng), Account: account, Amount: calibrationAmount,
			Currency: currency, Group: -1, After: -1, MaxTries: 1, Tries: []workload.Try{{}}})
	}
	return p
}

// statusesSeen names what the measuring charges got, for an error line.
func statusesSeen(attempts []history.Attempt) string {
	var got []string
	for _, a := range attempts {
		switch {
		case a.Status != 0:
			got = append(got, fmt.Sprint(a.Status))
		case a.Err != "":
			got = append(got, "no answer")
		}
	}
	if len(got) == 0 {
		return ""
	}
	return " (they got " + strings.Join(got, ", ") + ")"
}
