// Package provisiontest gives a test package one real Redis and one real
// Postgres for all its tests, and on request one real MySQL-family server
// (MariaDB), started by the project's own provisioning code. A missing
// server is a test failure, never a skip. It also hands the tests that run
// the module's commands as processes their binaries, built once for the
// whole suite when make test built them (Build).
package provisiontest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/idemchaos/idemchaos/targets/provision"
)

// Option adds to the services Main starts.
type Option func(*provision.Config)

// WithMySQL makes Main start a MySQL-family server too (MariaDB; or use
// IDEMCHAOS_MYSQL_URL): services.MySQLURL, and MySQLDatabase for a test's
// own database on it.
func WithMySQL(c *provision.Config) { c.MySQL = true }

// Main starts the services configured by FromEnv and opts, runs the
// package's tests and stops them. Use it from TestMain:
// os.Exit(provisiontest.Main(m, &services)), or
// os.Exit(provisiontest.Main(m, &services, provisiontest.WithMySQL)).
func Main(m *testing.M, services **provision.Services, opts ...Option) int {
	cfg := FromEnv()
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := provision.Start(ctx, cfg)
	cancel()
	if err != nil {
		need := "Redis and Postgres"
		if cfg.MySQL || cfg.MySQLURL != "" {
			need = "Redis, Postgres and MySQL"
		}
		fmt.Fprintf(os.Stderr, "FAIL: the tests need real %s: %v\n", need, err)
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

// MySQLDatabase is Database on the MySQL server (Main with WithMySQL): a
// fresh database for one test, dropped when the test ends. It returns a
// mysql:// URL; provision.MySQLDSN turns it into the driver's DSN.
func MySQLDatabase(t testing.TB, s *provision.Services) string {
	t.Helper()
	if s.MySQLURL == "" {
		t.Fatal("no MySQL server: start the services with provisiontest.WithMySQL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url, err := s.CreateMySQLDatabase(ctx, "test")
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.DropMySQLDatabase(ctx, url); err != nil {
			t.Errorf("drop database: %v", err)
		}
	})
	return url
}
