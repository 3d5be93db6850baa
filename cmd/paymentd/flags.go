package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
	"github.com/idemchaos/idemchaos/targets/failpoint/remote"
	"github.com/idemchaos/idemchaos/targets/provision"
	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// ledgerQuery is what an external idemchaos run passes as --ledger-query to
// read this ledger's ground truth: one row per charge that moved money.
const ledgerQuery = "SELECT idempotency_key, account, amount, id, attempt_id FROM charge_rows"

// topUpPath is what an external idemchaos run passes as --topup-path to
// fund an account (business-refusal); the default --topup-body fits.
const topUpPath = api.PathAccounts + "{{.Account}}" + api.TopUpSuffix

// config is everything the flags decide.
type config struct {
	strategy    string
	listen      string
	redisURL    string
	postgresURL string
	mysqlURL    string
	innoDB      bool // the strategy is on InnoDB (design.Info.MySQL): its ledger is in MariaDB
	noDocker    bool
	profile     api.Profile
	claimTTL    time.Duration
	keyTTL      time.Duration
	accounts    []account
	currency    string
	reset       bool
	redisPrefix string
	pgConns     int
	redisConns  int
	verbose     bool
	failpoints  bool
}

const usageHead = `paymentd: the idemchaos payment API as a standalone server

usage:
  paymentd --strategy S [--listen 127.0.0.1:8080] [--redis-url URL] [--postgres-url DSN]
           [--mysql-url URL] [--profile ietf|stripe] [--claim-ttl 5s] [--key-ttl 24h]
           [--accounts acct-1=1000000,acct-2=500000] [--reset] [--failpoints] [--verbose]

API: POST /v1/charges (header Idempotency-Key), GET /v1/accounts/{id},
POST /v1/accounts/{id}/top-ups ({"amount": minor units}: pays money in), GET /healthz.
Without --redis-url / --postgres-url it starts its own throwaway Redis and
Postgres (a Docker engine, else local redis-server and postgres binaries) and
stops them on exit. The innodb-* strategies keep their ledger and keys in
MariaDB (InnoDB): with one of them it uses --mysql-url, or starts a MariaDB
too (a Docker engine, else local mariadbd), and never for another strategy.
On start it prints, on stderr, the URL it serves, the store of its ledger,
and the ledger an external run (idemchaos run --target-url) reads as ground
truth (a postgres:// DSN, or a mysql:// URL for an innodb-* strategy):

  --ledger-url DSN
  --ledger-query '` + ledgerQuery + `'

and how it funds an account after a declined charge (business-refusal):

  --topup-path '` + topUpPath + `'

then the line "paymentd: ready". SIGINT or SIGTERM stops it gracefully.

With --failpoints it speaks the failpoint protocol (docs/failpoints.md): a
request carrying the X-Idemchaos-Failpoints header (a loopback URL the
harness serves) reports each named point its strategy passes to that URL
and waits for the answer, so idemchaos run --target-url ... --failpoints can
gate and fault it there. Requests without the header are not affected.

Exit codes: 0 stopped by a signal once ready, 1 a failure while serving,
2 bad flags, 3 stores unavailable (with the install command) or address in
use, 130 interrupted before ready.

flags:
`

// parseFlags reads args; -h prints the usage on stdout and returns flag.ErrHelp.
func parseFlags(args []string, stdout io.Writer) (config, error) {
	var c config
	var profile, accounts string
	fs := flag.NewFlagSet("paymentd", flag.ContinueOnError)
	fs.StringVar(&c.strategy, "strategy", "", wrapList("idempotency strategy (required):", design.Names()))
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8080", "address to serve on; a non-loopback address exposes the API\nto the network")
	fs.StringVar(&c.redisURL, "redis-url", "", "use this Redis (redis://host:port/db) instead of starting one")
	fs.StringVar(&c.postgresURL, "postgres-url", "", "use this Postgres database (postgres://user@host:port/db) instead of starting one")
	fs.StringVar(&c.mysqlURL, "mysql-url", "", "innodb-* strategies only: use this MariaDB or MySQL database\n(mysql://user:password@host:port/db) instead of starting one")
	fs.BoolVar(&c.noDocker, "no-docker", false, "when starting stores, never try a Docker engine; start local binaries")
	fs.StringVar(&profile, "profile", "ietf", "contract profile: "+strings.Join(api.ProfileNames(), ", "))
	fs.DurationVar(&c.claimTTL, "claim-ttl", 5*time.Second, "how long an in-flight claim lives in Redis")
	fs.DurationVar(&c.keyTTL, "key-ttl", 24*time.Hour, "how long a completed key is kept")
	fs.StringVar(&accounts, "accounts", defaultAccounts, "accounts to open if absent, as id=opening balance in minor units,\ncomma separated")
	fs.StringVar(&c.currency, "currency", "EUR", "currency of the accounts opened")
	fs.BoolVar(&c.reset, "reset", false, "empty the ledger (charges, keys, accounts) before opening the accounts")
	fs.StringVar(&c.redisPrefix, "redis-prefix", "paymentd:", "prefix of the Redis keys")
	fs.IntVar(&c.pgConns, "pg-conns", 8, "Postgres pool size (MariaDB's, for an innodb-* strategy)")
	fs.IntVar(&c.redisConns, "redis-conns", 16, "Redis pool size")
	fs.BoolVar(&c.failpoints, "failpoints", false, "speak the failpoint protocol: report each named point of a request that carries\n"+remote.Header+" to the harness's loopback URL")
	fs.BoolVar(&c.verbose, "verbose", false, "log one line per request (and store provisioning) on stderr")
	if err := parse(fs, args, stdout); err != nil {
		return c, err
	}
	return c, c.check(profile, accounts)
}

// parse parses args into fs; errors become one-line usage errors.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, usageHead)
		fs.PrintDefaults()
		return err
	case err != nil:
		return usageErrorf("%v (see paymentd -h)", err)
	case fs.NArg() > 0:
		return usageErrorf("unexpected argument %q (see paymentd -h)", fs.Arg(0))
	}
	return nil
}

// check validates the parsed flags and fills the derived fields.
func (c *config) check(profile, accounts string) error {
	if c.strategy == "" {
		return usageErrorf("--strategy is required (known: %s)", strings.Join(design.Names(), ", "))
	}
	info, err := design.Lookup(c.strategy)
	if err != nil {
		return usageErrorf("--strategy: %v", err)
	}
	if err := c.checkMySQL(info); err != nil {
		return err
	}
	p, err := api.ProfileByName(profile)
	if err != nil {
		return usageErrorf("--profile: %v", err)
	}
	c.profile = p
	if c.accounts, err = parseAccounts(accounts); err != nil {
		return usageErrorf("--accounts: %v", err)
	}
	return c.checkNumbers()
}

// checkMySQL notes whether the strategy is on InnoDB and refuses a
// --mysql-url it would not use, or one that is no mysql:// URL, before
// anything is provisioned.
func (c *config) checkMySQL(info design.Info) error {
	c.innoDB = info.MySQL
	if c.mysqlURL == "" {
		return nil
	}
	if !c.innoDB {
		return usageErrorf("--mysql-url: strategy %s keeps no ledger in MariaDB (only the innodb-* strategies do)", c.strategy)
	}
	if _, err := provision.MySQLDSN(c.mysqlURL); err != nil {
		return usageErrorf("--mysql-url: %v", err)
	}
	return nil
}

func (c *config) checkNumbers() error {
	switch {
	case c.claimTTL <= 0:
		return usageErrorf("--claim-ttl %v: want a positive duration", c.claimTTL)
	case c.keyTTL <= 0:
		return usageErrorf("--key-ttl %v: want a positive duration", c.keyTTL)
	case len(c.currency) != 3:
		return usageErrorf("--currency %q: want a three-letter code", c.currency)
	case c.pgConns < 1 || c.pgConns > 256:
		return usageErrorf("--pg-conns %d: want 1 to 256", c.pgConns)
	case c.redisConns < 1 || c.redisConns > 1024:
		return usageErrorf("--redis-conns %d: want 1 to 1024", c.redisConns)
	}
	return nil
}
