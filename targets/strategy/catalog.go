package strategy

import (
	"errors"
	"fmt"
)

// Info describes a strategy for `idemchaos list` and the reports.
type Info struct {
	Name      string `json:"name"`
	Mechanism string `json:"mechanism"`
	Flaw      string `json:"flaw"` // empty for a correct design
	Redis     bool   `json:"redis"`
	new       func(Deps) Strategy
}

var catalog = []Info{
	{Name: "none", Mechanism: "no idempotency layer", Flaw: "every retry charges again", new: newNone},
	{Name: "memory", Mechanism: "per-replica in-process map: claim, fingerprint, stored response",
		Flaw: "state is per process: a retry on another replica charges again", new: newMemory},
	{Name: "redis-getset", Mechanism: "GET key; if absent charge in Postgres, then SET the response",
		Flaw: "check-then-act race: concurrent duplicates all see the key absent", Redis: true, new: newRedisGetSet},
	{Name: "redis-setnx", Mechanism: "SET NX EX claim, charge in Postgres, SET the response, DEL on error",
		Flaw: "two systems: a lost response write or an expired claim lets a retry charge again", Redis: true,
		new: func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.ClaimTTL, release: true} }},
	{Name: "redis-sticky", Mechanism: "as redis-setnx, but the claim lives as long as the key and is never released on error",
		Flaw: "poisoned key: after a failure every retry gets 409 until the TTL", Redis: true,
		new: func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.KeyTTL} }},
	{Name: "redis-cache-errors", Mechanism: "as redis-setnx, but every response is stored, 5xx included",
		Flaw: "poisoned key: a transient 5xx is replayed to every retry", Redis: true,
		new: func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.ClaimTTL, cacheErrors: true} }},
	{Name: "pg-split-tx", Mechanism: "key row committed in_progress in one transaction, charge and completion in a second, no recovery",
		Flaw: "poisoned key: a failure between the two transactions leaves the key in progress forever", new: newPgSplit},
	{Name: "pg-nofingerprint", Mechanism: "as pg-tx, without the request fingerprint",
		Flaw: "a retry with another payload gets the first payload's response", new: func(d Deps) Strategy { return pgTx{deps: d} }},
	{Name: "pg-tx", Mechanism: "one Postgres transaction: non-blocking claim, INSERT key, charge, store response; fingerprint checked",
		new: func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true} }},
	{Name: "redis-pg-guard", Mechanism: "Redis SET NX claim for the fast 409 path; the key row in Postgres, in the charge's transaction, is the truth",
		Redis: true, new: func(d Deps) Strategy { return redisPgGuard{d} }},
}

// Catalog lists the built-in strategies in a stable order.
func Catalog() []Info {
	return append([]Info(nil), catalog...)
}

// Names lists the strategy names in catalog order.
func Names() []string {
	names := make([]string, len(catalog))
	for i, s := range catalog {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the description of a strategy.
func Lookup(name string) (Info, error) {
	for _, s := range catalog {
		if s.Name == name {
			return s, nil
		}
	}
	return Info{}, fmt.Errorf("unknown strategy %q (known: %v)", name, Names())
}

// New builds the named strategy on deps.
func New(name string, deps Deps) (Strategy, error) {
	info, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if info.Redis && deps.Redis == nil {
		return nil, fmt.Errorf("strategy %s needs Redis", name)
	}
	if deps.Pool == nil {
		return nil, errors.New("strategy needs a Postgres pool")
	}
	return info.new(deps.withDefaults()), nil
}
