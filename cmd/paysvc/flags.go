package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// mistake is a way the service breaks its idempotency promise.
type mistake string

// The mistakes, and none.
const (
	correct    mistake = "none"
	rerender   mistake = "rerender"
	wait       mistake = "wait"
	shortClaim mistake = "short-claim"
	late       mistake = "late"
	tooEarly   mistake = "too-early"
)

// mistakes is the catalog of --mistake, in the order -h lists it.
var mistakes = []struct {
	name mistake
	doc  string
}{
	{correct, "keeps every promise (with a large --charge-time: correct and slow)"},
	{rerender, "rebuilds each replay from the ledger row, with a fresh created timestamp, instead of the stored answer"},
	{wait, "a duplicate sent while its key is in flight waits for the charge and gets its replay, instead of 409 at once"},
	{shortClaim, "the claim expires during the charge (--claim-ttl under --charge-time): a retry after it takes the key and charges again"},
	{late, "answers 201 first and commits the row --late later, recording the key only then: a retry meanwhile charges again"},
	{tooEarly, "a duplicate sent while its key is in flight gets 425 Too Early (the source text's alternative) instead of 409"},
}

// config is everything the flags decide.
type config struct {
	dsn        string
	commitDSN  string // a second path to the database for the charges' rows ("": dsn's)
	port       int
	mistake    mistake
	chargeTime time.Duration // how long a charge takes before its row is written
	claimTTL   time.Duration // a claim older than this is abandoned: a duplicate takes the key
	late       time.Duration // late: how long after its answer a row commits
}

// Defaults of the durations.
const (
	defaultClaimTTL = 30 * time.Second
	// shortClaimShare: short-claim without --claim-ttl holds a claim for
	// this share of the charge time.
	shortClaimShare = 2
)

const usageHead = `paysvc: a payment service with a switch for the idempotency mistakes

usage:
  paysvc --dsn postgres://user@127.0.0.1:5432/db [--port 0] [--mistake none]
         [--charge-time 20ms] [--claim-ttl 30s] [--late 1500ms] [--commit-dsn URL]

It serves POST /v1/charges on 127.0.0.1 and prints its base URL on stdout.
Test it with:

  idemchaos run --target-url URL --ledger-url DSN --ledger-query '` + ledgerQuery + `'

mistakes:
`

// parseFlags reads args; -h prints the usage on out and returns flag.ErrHelp.
func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	var m string
	fs := flag.NewFlagSet("paysvc", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.dsn, "dsn", "", "Postgres database of the ledger (required); paysvc creates its charges table there")
	fs.StringVar(&c.commitDSN, "commit-dsn", "", "write the charges' rows through a second pool on this URL of the same database, not --dsn's: "+
		"a service that reaches its database on two paths (a store fault on the proxy --dsn goes through never meets a charge)")
	fs.IntVar(&c.port, "port", 0, "port to listen on, on 127.0.0.1 (0: any free port)")
	fs.StringVar(&m, "mistake", string(correct), "the mistake to make: "+names())
	fs.DurationVar(&c.chargeTime, "charge-time", 20*time.Millisecond, "how long a charge takes (the payment processor's call)")
	fs.DurationVar(&c.claimTTL, "claim-ttl", 0, fmt.Sprintf("how long a claim holds a key before it counts as abandoned (default %s; with short-claim, 1/%d of --charge-time)", defaultClaimTTL, shortClaimShare))
	fs.DurationVar(&c.late, "late", 1500*time.Millisecond, "with late: how long after the answer a charge's row commits")
	fs.Usage = func() {
		fmt.Fprint(out, usageHead)
		for _, m := range mistakes {
			fmt.Fprintf(out, "  %-12s %s\n", m.name, m.doc)
		}
		fmt.Fprintln(out, "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c.mistake = mistake(m)
	return c, c.check()
}

// check fills the derived default and reports the first bad value.
func (c *config) check() error {
	switch {
	case !known(c.mistake):
		return fmt.Errorf("--mistake %q: want one of %s", c.mistake, names())
	case c.dsn == "":
		return fmt.Errorf("--dsn is required: the Postgres database of the ledger")
	case c.port < 0 || c.port > 65535:
		return fmt.Errorf("--port %d: want 0 to 65535", c.port)
	case c.chargeTime < 0 || c.claimTTL < 0 || c.late <= 0:
		return fmt.Errorf("--charge-time and --claim-ttl may not be negative, --late must be positive")
	}
	if c.claimTTL == 0 {
		c.claimTTL = defaultClaimTTL
		if c.mistake == shortClaim {
			c.claimTTL = c.chargeTime / shortClaimShare
		}
	}
	if c.mistake == shortClaim && (c.claimTTL <= 0 || c.claimTTL >= c.chargeTime) {
		return fmt.Errorf("--mistake short-claim needs --claim-ttl (%s) under a positive --charge-time (%s)", c.claimTTL, c.chargeTime)
	}
	return nil
}

func known(m mistake) bool {
	for _, k := range mistakes {
		if k.name == m {
			return true
		}
	}
	return false
}

func names() string {
	var out []string
	for _, m := range mistakes {
		out = append(out, string(m.name))
	}
	return strings.Join(out, ", ")
}
