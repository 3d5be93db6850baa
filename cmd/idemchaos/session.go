package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// session is everything a running command set up; close tears it down in
// reverse order, whatever happened.
type session struct {
	services *provision.Services
	dsns     []string
	toxi     *fault.Toxiproxy
	runners  []*scenarios.Runner // one per worker, each on its own database
}

// open provisions the stores, Toxiproxy and one runner (with a fresh
// database) per worker.
func open(ctx context.Context, c common, workers int, log io.Writer) (*session, error) {
	s := &session{}
	var err error
	s.services, err = provision.Start(ctx, provision.Config{RedisURL: c.redisURL, PostgresURL: c.postgresURL,
		NoDocker: c.noDocker, Log: log})
	if err != nil {
		return nil, envError(err)
	}
	if err := s.setUp(ctx, workers); err != nil {
		s.close()
		return nil, envError(err)
	}
	fmt.Fprintf(log, "stores: redis (%s), postgres (%s)\n", s.services.RedisSource, s.services.PostgresSource)
	return s, nil
}

func (s *session) setUp(ctx context.Context, workers int) error {
	var err error
	if s.toxi, err = fault.Embedded(); err != nil {
		return err
	}
	for i := 0; i < workers; i++ {
		dsn, err := s.services.CreateDatabase(ctx, "idemchaos")
		if err != nil {
			return err
		}
		s.dsns = append(s.dsns, dsn)
		r, err := scenarios.NewRunner(ctx, scenarios.Env{PostgresDSN: dsn, RedisURL: s.services.RedisURL, Toxiproxy: s.toxi})
		if err != nil {
			return err
		}
		s.runners = append(s.runners, r)
	}
	return nil
}

func (s *session) close() error {
	var errs []error
	for _, r := range s.runners {
		errs = append(errs, r.Close())
	}
	if s.toxi != nil {
		errs = append(errs, s.toxi.Close())
	}
	for _, dsn := range s.dsns {
		errs = append(errs, s.services.DropDatabase(context.Background(), dsn))
	}
	errs = append(errs, s.services.Close())
	return errors.Join(errs...)
}
