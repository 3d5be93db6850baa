// Package services judges payment services written the way teams write
// them (the programs in the directories beside this file: a Postgres
// recipe with an account row lock, a JSONB response column, a Redis claim
// that expires before the charge ends, MariaDB services whose ledger
// idemchaos reads with --ledger-url mysql://; every query on the request's
// context) with the real idemchaos CLI, each service a process of its own
// on a database of its own, as a team's CI would. A correct service must
// pass every scenario that runs against it, on every seed; a flawed one
// must fail the scenario that catches it, on every seed, with the anomaly
// named.
//
// It holds tests only, in the e2e module. IDEMCHAOS_SERVICE_SEEDS sets the
// seeds per run (make test-services-long: 20; default 1).
package services

import (
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/provision/provisiontest"
)

// stores are the Redis, Postgres and MariaDB the services and their
// ledgers use.
var stores *provision.Services

// bin is where the binaries are built: idemchaos and every service.
var bin string

func TestMain(m *testing.M) {
	redis.SetLogger(&logging.VoidLogger{})
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "idemchaos-services-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// one go build for all (its links run in parallel), or the suite's
	// binaries (make test's)
	if bin, err = provisiontest.Build(dir, "github.com/idemchaos/idemchaos/cmd/idemchaos", "./accountlock", "./jsonbstore", "./expiringclaim",
		"./checkthenset", "./mutexhold", "./inserthold", "./accounthold",
		"./mariadbnowait", "./mariadbsnapshot", "./mariadbgaplock", "./mariadbinsertwait", "./mariadbtx"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return provisiontest.Main(m, &stores, provisiontest.WithMySQL)
}
