package engine

import (
	"context"
	"errors"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
)

// BadInputError is a failure caused by what the user gave (a target that
// breaks the rules, a ledger query that does not fit), not by the
// environment.
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }

func (e *BadInputError) Unwrap() error { return e.Err }

// OpenService readies a user's own service for testing, opening all it
// needs: the embedded Toxiproxy in front of it, the user's Toxiproxy
// (t.Toxiproxy) where its store proxies live, and its ledger at ledgerURL
// read with t.LedgerQuery. Close releases all of it.
func OpenService(ctx context.Context, t scenarios.External, ledgerURL string) (*Service, error) {
	if err := t.Check(); err != nil {
		return nil, &BadInputError{err}
	}
	var closers []func() error
	fail := func(err error) (*Service, error) {
		for i := len(closers) - 1; i >= 0; i-- {
			err = errors.Join(err, closers[i]())
		}
		return nil, err
	}
	var stores *fault.Toxiproxy
	if t.Toxiproxy != "" {
		var err error
		if stores, err = fault.External(t.Toxiproxy); err != nil {
			return nil, err
		}
	}
	front, err := fault.Embedded()
	if err != nil {
		return nil, err
	}
	closers = append(closers, front.Close)
	ledger, err := OpenLedger(ctx, ledgerURL, t.LedgerQuery)
	if err != nil {
		return fail(err)
	}
	closers = append(closers, func() error { ledger.Close(); return nil })
	svc, err := NewService(t, front, stores, ledger, ledger.Info())
	if err != nil {
		return fail(err)
	}
	svc.closers = closers
	return svc, nil
}
