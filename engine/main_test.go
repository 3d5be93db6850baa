package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/idemchaos/idemchaos/engine"
	"github.com/idemchaos/idemchaos/sim/fault"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

var services *provision.Services

func TestMain(m *testing.M) {
	redis.SetLogger(&logging.VoidLogger{}) // cut store links make go-redis log every failed dial
	// MariaDB too, for the MySQL ledger's tests and the InnoDB strategies' cells
	code := provisiontest.Main(m, &services, provisiontest.WithMySQL)
	if err := shared.close(); err != nil {
		fmt.Fprintf(os.Stderr, "replicated postgres: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// shared is the package's one replicated Postgres, started by the first
// test that runs a cell on it.
var shared replicated

type replicated struct {
	mu   sync.Mutex
	toxi *fault.Toxiproxy
	rp   *engine.Replication
}

func (s *replicated) get(ctx context.Context) (*engine.Replication, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rp != nil {
		return s.rp, nil
	}
	var err error
	if s.toxi == nil {
		if s.toxi, err = fault.Embedded(); err != nil {
			return nil, err
		}
	}
	s.rp, err = engine.StartReplication(ctx, provisiontest.Replicated(), s.toxi, services.RedisURL)
	return s.rp, err
}

func (s *replicated) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.rp != nil {
		errs = append(errs, s.rp.Close())
	}
	if s.toxi != nil {
		errs = append(errs, s.toxi.Close())
	}
	return errors.Join(errs...)
}

// newExecutor is newRunner's Builtin, with the cells of the replicated
// scenarios sent to the shared replicated Postgres.
func newExecutor(t *testing.T) engine.Executor {
	t.Helper()
	return engine.Routed(newRunner(t), shared.get)
}

// newRunner gives a test its own databases (Postgres, and MariaDB for the
// InnoDB strategies), Toxiproxy and runner.
func newRunner(t *testing.T) *engine.Builtin {
	t.Helper()
	tp, err := fault.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tp.Close() })
	r, err := engine.NewBuiltin(context.Background(), engine.Env{
		PostgresDSN: provisiontest.Database(t, services), MySQLURL: provisiontest.MySQLDatabase(t, services),
		RedisURL: services.RedisURL, Toxiproxy: tp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
