package strategy

import (
	"errors"
	"fmt"

	"github.com/idemchaos/idemchaos/targets/strategy/design"
)

// builders build each design of the catalog (targets/strategy/design) by
// its name; a test keeps the two lists equal.
var builders = map[string]func(Deps) Strategy{
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

// New builds the named strategy on deps.
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
	if deps.Pool == nil {
		return nil, errors.New("strategy needs a Postgres pool")
	}
	return build(deps.withDefaults()), nil
}
