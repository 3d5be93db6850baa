package strategy

import (
	"errors"
	"fmt"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// builders build each design of the catalog (targets/strategy/design) by
// its name; a test keeps the two lists equal.
var builders = map[string]Builder{
	"none":               newNone,
	"memory":             newMemory,
	"redis-getset":       newRedisGetSet,
	"redis-setnx":        func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.ClaimTTL, release: true} },
	"redis-sticky":       func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.KeyTTL} },
	"redis-cache-errors": func(d Deps) Strategy { return redisClaim{deps: d, claimTTL: d.ClaimTTL, cacheErrors: true} },
	"pg-split-tx":        newPgSplit,
	"pg-nofingerprint":   func(d Deps) Strategy { return pgTx{deps: d} },
	"pg-blocking-claim":  func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true, blockingClaim: true} },
	"pg-success-only":    func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true, successOnly: true} },
	"pg-async-commit":    func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true, asyncCommit: true} },
	"pg-standby-read":    newPgStandbyRead,
	"pg-split-debit":     newPgSplitDebit,
	"pg-tx":              func(d Deps) Strategy { return pgTx{deps: d, fingerprint: true} },
	"redis-pg-guard":     func(d Deps) Strategy { return redisPgGuard{d} },
}

// Builder builds a strategy on its stores.
type Builder func(Deps) Strategy

// Register adds a strategy: its definition to the design catalog and its
// builder here, the one call a new strategy's file makes from its init
// function, as a Toxiproxy toxic registers itself. It panics on a name
// already taken or a nil builder.
func Register(info design.Info, build Builder) {
	if build == nil {
		panic(fmt.Sprintf("strategy: %s registered without a builder", info.Name))
	}
	if _, ok := builders[info.Name]; ok {
		panic(fmt.Sprintf("strategy: %s is already registered", info.Name))
	}
	design.Register(info)
	builders[info.Name] = build
}

// New builds the named strategy on deps: a strategy on InnoDB (Info.MySQL)
// needs deps.MySQL and no Postgres pool, every other one deps.Pool.
func New(name string, deps Deps) (Strategy, error) {
	info, err := design.Lookup(name)
	if err != nil {
		return nil, err
	}
	build, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("strategy %s has no implementation", name)
	}
	if info.Redis && deps.Redis == nil {
		return nil, fmt.Errorf("strategy %s needs Redis", name)
	}
	switch {
	case info.MySQL && deps.MySQL == nil:
		return nil, fmt.Errorf("strategy %s needs an InnoDB pool (Deps.MySQL)", name)
	case !info.MySQL && deps.Pool == nil:
		return nil, errors.New("strategy needs a Postgres pool")
	}
	return build(deps.withDefaults()), nil
}
