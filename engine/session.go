package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/idemchaos/idemchaos/scenarios"
	"github.com/idemchaos/idemchaos/sim/workload"

	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// Session is everything a command running built-in strategies set up: the
// stores, the embedded Toxiproxy and one Builtin per worker, each on a
// database of its own. Close tears it down in reverse order, whatever
// happened.
type Session struct {
	Services *provision.Services
	Toxi     *fault.Toxiproxy
	Builtins []*Builtin

	dsnsMu sync.Mutex // NewDatabase may be called from goroutines at once
	dsns   []string
	mysqls []string // the MariaDB databases of the Builtins, dropped by Close

	replCfg provision.ReplicatedConfig
	replMu  sync.Mutex
	repl    *Replication // started by the first cell that needs it
}

// Open provisions the stores as cfg says (the URLs given, else a Docker
// engine, else local binaries on free loopback ports), starts Toxiproxy and
// creates workers Builtins; it says on log which stores it uses. A MariaDB
// is provisioned only when cfg asks for one (cfg.MySQL or cfg.MySQLURL: see
// NeedsMySQL), and then each Builtin gets a database of its own there too,
// for the InnoDB strategies.
func Open(ctx context.Context, cfg provision.Config, workers int, log io.Writer) (*Session, error) {
	cfg.Log = log
	services, err := provision.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{Services: services, replCfg: provision.ReplicatedConfig{TempDir: cfg.TempDir, PGBinDir: cfg.PGBinDir, Log: log,
		ClusterCache: cfg.ClusterCache}}
	if err := s.setUp(ctx, workers, cfg.TempDir, log); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	if services.MySQLURL != "" {
		fmt.Fprintf(log, "stores: redis (%s), postgres (%s), mysql (%s)\n", services.RedisSource, services.PostgresSource, services.MySQLSource)
	} else {
		fmt.Fprintf(log, "stores: redis (%s), postgres (%s)\n", services.RedisSource, services.PostgresSource)
	}
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
		var mysqlURL string
		if s.Services.MySQLURL != "" {
			if mysqlURL, err = s.Services.CreateMySQLDatabase(ctx, "idemchaos"); err != nil {
				return err
			}
			s.mysqls = append(s.mysqls, mysqlURL)
		}
		b, err := NewBuiltin(ctx, Env{PostgresDSN: dsn, MySQLURL: mysqlURL, RedisURL: s.Services.RedisURL, Toxiproxy: s.Toxi,
			TempDir: tempDir, Log: log})
		if err != nil {
			return err
		}
		s.Builtins = append(s.Builtins, b)
	}
	return nil
}

// NewDatabase creates a database of the session's own, dropped by Close.
// It is safe to call from several goroutines at once.
func (s *Session) NewDatabase(ctx context.Context) (string, error) {
	dsn, err := s.Services.CreateDatabase(ctx, "idemchaos")
	if err == nil {
		s.dsnsMu.Lock()
		s.dsns = append(s.dsns, dsn)
		s.dsnsMu.Unlock()
	}
	return dsn, err
}

// Executors are the session's Builtins as executors for RunAll. A cell
// whose scenario runs on the replicated Postgres goes to the session's one
// Replication instead (started when the first such cell comes), one such
// cell at a time.
func (s *Session) Executors() []Executor {
	out := make([]Executor, len(s.Builtins))
	for i, b := range s.Builtins {
		out[i] = Routed(b, s.replication)
	}
	return out
}

// Routed is an executor that runs a cell on own, or, when its scenario
// runs on the replicated Postgres, on the Replication repl gives (which
// may start it on first use).
func Routed(own *Builtin, repl func(context.Context) (*Replication, error)) Executor {
	return router{own: own, repl: repl}
}

// router sends a cell to its worker's Builtin or to the Replication.
type router struct {
	own  *Builtin
	repl func(context.Context) (*Replication, error)
}

func (rt router) Execute(ctx context.Context, c scenarios.Cell, plan workload.Plan) (scenarios.Record, error) {
	if !needsReplication(c) {
		return rt.own.Execute(ctx, c, plan)
	}
	rp, err := rt.repl(ctx)
	if err != nil {
		return scenarios.Record{}, err
	}
	return rp.Execute(ctx, c, plan)
}

// replication starts the session's replicated Postgres once.
func (s *Session) replication(ctx context.Context) (*Replication, error) {
	s.replMu.Lock()
	defer s.replMu.Unlock()
	if s.repl != nil {
		return s.repl, nil
	}
	rp, err := StartReplication(ctx, s.replCfg, s.Toxi, s.Services.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("replicated postgres: %w", err)
	}
	s.repl = rp
	return rp, nil
}

// Close stops everything the session started.
func (s *Session) Close() error {
	var errs []error
	for _, b := range s.Builtins {
		errs = append(errs, b.Close())
	}
	s.replMu.Lock()
	if s.repl != nil {
		errs = append(errs, s.repl.Close())
		s.repl = nil
	}
	s.replMu.Unlock()
	if s.Toxi != nil {
		errs = append(errs, s.Toxi.Close())
	}
	s.dsnsMu.Lock()
	dsns := s.dsns
	s.dsnsMu.Unlock()
	for _, dsn := range dsns {
		errs = append(errs, s.Services.DropDatabase(context.Background(), dsn))
	}
	for _, url := range s.mysqls {
		errs = append(errs, s.Services.DropMySQLDatabase(context.Background(), url))
	}
	errs = append(errs, s.Services.Close())
	return errors.Join(errs...)
}

// NeedsMySQL reports whether any of the strategies is on InnoDB: a session
// running them must provision a MariaDB (provision.Config.MySQL), one
// running none of them need not.
func NeedsMySQL(strategies ...string) bool {
	for _, name := range strategies {
		if info, err := design.Lookup(name); err == nil && info.MySQL {
			return true
		}
	}
	return false
}
