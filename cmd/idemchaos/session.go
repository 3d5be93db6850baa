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
	dsn      string
	toxi     *fault.Toxiproxy
	runner   *scenarios.Runner
}

// open provisions the stores, a fresh database, Toxiproxy and a runner.
func open(ctx context.Context, c common, log io.Writer) (*session, error) {
	s := &session{}
	var err error
	s.services, err = provision.Start(ctx, provision.Config{RedisURL: c.redisURL, PostgresURL: c.postgresURL,
		NoDocker: c.noDocker, Log: log})
	if err != nil {
		return nil, envError(err)
	}
	if err := s.setUp(ctx); err != nil {
		s.close()
		return nil, envError(err)
	}
	fmt.Fprintf(log, "stores: redis (%s), postgres (%s)\n", s.services.RedisSource, s.services.PostgresSource)
	return s, nil
}

func (s *session) setUp(ctx context.Context) error {
	var err error
	if s.dsn, err = s.services.CreateDatabase(ctx, "idemchaos"); err != nil {
		return err
	}
	if s.toxi, err = fault.Embedded(); err != nil {
		return err
	}
	s.runner, err = scenarios.NewRunner(ctx, scenarios.Env{PostgresDSN: s.dsn, RedisURL: s.services.RedisURL,
		Toxiproxy: s.toxi})
	return err
}

func (s *session) close() error {
	var errs []error
	if s.runner != nil {
		errs = append(errs, s.runner.Close())
	}
	if s.toxi != nil {
		errs = append(errs, s.toxi.Close())
	}
	if s.dsn != "" {
		errs = append(errs, s.services.DropDatabase(context.Background(), s.dsn))
	}
	errs = append(errs, s.services.Close())
	return errors.Join(errs...)
}
