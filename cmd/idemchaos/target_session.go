package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
)

// targetSession is a run against a user's service: no stores of our own,
// the embedded Toxiproxy in front of the service, the user's Toxiproxy (if
// given) where its store proxies live, and the service's ledger.
type targetSession struct {
	toxi   *fault.Toxiproxy
	stores *fault.Toxiproxy // nil: no --toxiproxy-url
	ledger *scenarios.SQLLedger
	runner *scenarios.ExternalRunner
}

func openTarget(ctx context.Context, t targetFlags, e scenarios.External, log io.Writer) (*targetSession, error) {
	s := &targetSession{}
	var err error
	if t.toxiproxyURL != "" {
		if s.stores, err = fault.External(t.toxiproxyURL); err != nil {
			return nil, envError(err)
		}
	}
	if s.toxi, err = fault.Embedded(); err != nil {
		return nil, envError(err)
	}
	if s.ledger, err = scenarios.OpenSQLLedger(ctx, t.ledgerURL, t.ledgerQuery); err != nil {
		s.close()
		return nil, usageErrorf("%v", err)
	}
	if s.runner, err = scenarios.NewExternalRunner(e, s.toxi, s.stores, s.ledger, s.ledger.Info()); err != nil {
		s.close()
		return nil, envError(err)
	}
	info := s.ledger.Info()
	fmt.Fprintf(log, "target: %s at %s; ledger rows name charges: %v, attempts: %v\n", e.Name, strings.Join(e.URLs, ", "), info.ChargeIDs, info.AttemptIDs)
	return s, nil
}

func (s *targetSession) close() error {
	var errs []error
	if s.runner != nil {
		errs = append(errs, s.runner.Close())
	}
	if s.ledger != nil {
		s.ledger.Close()
	}
	if s.toxi != nil {
		errs = append(errs, s.toxi.Close())
	}
	return errors.Join(errs...)
}
