// Package provisiontest gives a test package one real Redis and one real
// Postgres for all its tests, started by the project's own provisioning code.
// A missing server is a test failure, never a skip.
package provisiontest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/provision"
)

// Main starts the services configured by FromEnv, runs the package's tests
// and stops them. Use it from TestMain:
// os.Exit(provisiontest.Main(m, &services)).
func Main(m *testing.M, services **provision.Services) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := provision.Start(ctx, FromEnv())
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: the tests need real Redis and Postgres: %v\n", err)
		return 3
	}
	*services = s
	code := m.Run()
	if err := s.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping test services: %v\n", err)
		return max(code, 1)
	}
	return code
}

// Database creates a fresh database for one test and drops it when the test
// ends; tests sharing a server are isolated by database.
func Database(t testing.TB, s *provision.Services) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, err := s.CreateDatabase(ctx, "test")
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.DropDatabase(ctx, dsn); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	return dsn
}
