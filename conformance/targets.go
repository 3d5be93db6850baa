package conformance

import (
	"fmt"
	"slices"
	"time"

	"github.com/idemchaos/idemchaos/targets/api"
)

// Kind is how a target is built and started.
type Kind string

// The kinds of target.
const (
	// Paymentd is idemchaos's own payment server (cmd/paymentd) with a
	// built-in strategy: the reference rows.
	Paymentd Kind = "paymentd"
	// Go is a Go program in its own module under Dir, built with go build.
	Go Kind = "go"
	// Node is a Node program under Dir, its dependencies installed with
	// npm ci from its package-lock.json, started with node Dir/server.js.
	Node Kind = "node"
)

// Target is one row of the conformance table: a library (or a reference
// strategy) set up one way, with the stores and replicas it runs on.
type Target struct {
	// Name names the row ("fiber-redis-2").
	Name string
	// Library is what is under test, and Version the exact release (its
	// lock file pins it).
	Library, Version string
	// Source is where the library's code lives, for the citations.
	Source string
	Kind   Kind
	// Dir is the target's directory, relative to the repository root
	// (Go and Node).
	Dir string
	// Args are the target's own arguments (the storage it uses; for
	// paymentd, the strategy and its TTLs).
	Args []string
	// Redis says the target keeps its idempotency state in Redis (its
	// Redis link goes through Toxiproxy, and Redis faults run).
	Redis bool
	// DynamoDB says the target keeps its idempotency records in DynamoDB:
	// a table of its own on the run's dynalite (Dynalite), its DynamoDB
	// link through Toxiproxy (nil: no DynamoDB).
	DynamoDB *DynamoDBTable
	// StandIn is the store the target runs on in place of its users' (nil:
	// the same).
	StandIn *StandIn
	// Replicas is how many processes serve it, sharing its stores.
	Replicas int
	// KeyHeader is the header the library reads the key from ("":
	// Idempotency-Key).
	KeyHeader string
	// ClaimTimeout is the longest a key stays in flight in a healthy run
	// (declared as --claim-timeout); KeyTTL its retention when it is short
	// enough to declare (--key-ttl; 0: not declared, key-expiry skipped).
	ClaimTimeout, KeyTTL time.Duration
	// Setup says in one line how the library is set up.
	Setup string
	// Promises are what the library says it does, each with where.
	Promises []Promise
}

// DynamoDBTable is a DynamoDB table as the library's documentation has
// its users create it, as far as its stand-in allows (dynalite has no TTL
// to enable: see Dynalite).
type DynamoDBTable struct {
	// Key is the partition key, a string attribute.
	Key string
}

// Promise is one thing a library says it does, and where it says so.
type Promise struct {
	Text  string
	Where string // "file: function"
}

// Profiles are the contract profiles every target runs under.
var Profiles = []api.Profile{api.IETF, api.Stripe}

// LedgerQuery reads the ledger every target writes (targets/ledger's
// charge_rows view).
const LedgerQuery = "SELECT idempotency_key, account, amount, id, attempt_id FROM charge_rows"

// Lookup finds the targets named, in catalog order; names nil means all.
func Lookup(names []string) ([]Target, error) {
	if len(names) == 0 {
		return slices.Clone(Catalog), nil
	}
	var out []Target
	for _, t := range Catalog {
		if slices.Contains(names, t.Name) {
			out = append(out, t)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(Catalog, func(t Target) bool { return t.Name == n }) {
			return nil, fmt.Errorf("unknown conformance target %q (want %s)", n, Names())
		}
	}
	return out, nil
}

// Names lists the targets' names, in catalog order.
func Names() []string {
	out := make([]string, len(Catalog))
	for i, t := range Catalog {
		out[i] = t.Name
	}
	return out
}
