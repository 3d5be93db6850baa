package runner

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/provision"
)

// Session is everything a command running built-in strategies set up: the
// stores, the embedded Toxiproxy and one Builtin per worker, each on a
// database of its own. Close tears it down in reverse order, whatever
// happened.
type Session struct {
	Services *provision.Services
	Toxi     *fault.Toxiproxy
	Builtins []*Builtin
	dsns     []string
}

// Open provisions the stores as cfg says (the URLs given, else a Docker
// engine, else local binaries on free loopback ports), starts Toxiproxy and
// creates workers Builtins; it says on log which stores it uses.
func Open(ctx context.Context, cfg provision.Config, workers int, log io.Writer) (*Session, error) {
	cfg.Log = log
	services, err := provision.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{Services: services}
	if err := s.setUp(ctx, workers, cfg.TempDir, log); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	fmt.Fprintf(log, "stores: redis (%s), postgres (%s)\n", services.RedisSource, services.PostgresSource)
	return s, nil
}

func (s *Session) setUp(ctx context.Context, workers int, tempDir string, log io.Writer) error {
	var err error
	if s.Toxi, err = fault.Embedded(); err != nil {
		return err
	}
	for range workers {
		dsn, err := s.NewDatabase(ctx)
		if err != nil {
			return err
		}
		b, err := NewBuiltin(ctx, Env{PostgresDSN: dsn, RedisURL: s.Services.RedisURL, Toxiproxy: s.Toxi, TempDir: tempDir, Log: log})
		if err != nil {
			return err
		}
		s.Builtins = append(s.Builtins, b)
	}
	return nil
}

// NewDatabase creates a database of the session's own, dropped by Close.
func (s *Session) NewDatabase(ctx context.Context) (string, error) {
	dsn, err := s.Services.CreateDatabase(ctx, "idemchaos")
	if err == nil {
		s.dsns = append(s.dsns, dsn)
	}
	return dsn, err
}

// Executors are the session's Builtins as executors for RunAll.
func (s *Session) Executors() []Executor {
	out := make([]Executor, len(s.Builtins))
	for i, b := range s.Builtins {
		out[i] = b
	}
	return out
}

// Close stops everything the session started.
func (s *Session) Close() error {
	var errs []error
	for _, b := range s.Builtins {
		errs = append(errs, b.Close())
	}
	if s.Toxi != nil {
		errs = append(errs, s.Toxi.Close())
	}
	for _, dsn := range s.dsns {
		errs = append(errs, s.Services.DropDatabase(context.Background(), dsn))
	}
	errs = append(errs, s.Services.Close())
	return errors.Join(errs...)
}
